package tpcc

// Table names a TPC-C table. The names are the ones every engine uses
// (ORDER is a reserved word, so the table is "orders").
type Table string

// The nine tables.
const (
	Warehouse Table = "warehouse"
	District  Table = "district"
	Customer  Table = "customer"
	History   Table = "history"
	Orders    Table = "orders"
	NewOrders Table = "new_order"
	OrderLine Table = "order_line"
	Stock     Table = "stock"
	Item      Table = "item"
)

// Tables lists all tables in load order.
var Tables = []Table{Item, Warehouse, District, Stock, Customer, History, Orders, NewOrders, OrderLine}

// Columns lists each table's columns in the order the generators emit them.
var Columns = map[Table][]string{
	Warehouse: {"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"},
	District:  {"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"},
	Customer: {"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip",
		"c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"},
	History:   {"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"},
	Orders:    {"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"},
	NewOrders: {"no_o_id", "no_d_id", "no_w_id"},
	OrderLine: {"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"},
	Stock: {"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05", "s_dist_06", "s_dist_07",
		"s_dist_08", "s_dist_09", "s_dist_10", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"},
	Item: {"i_id", "i_im_id", "i_name", "i_price", "i_data"},
}

// InitialRows returns the number of rows a table holds right after loading
// w warehouses (ORDER-LINE is random: it returns the expected value).
func InitialRows(t Table, w int) int64 {
	W := int64(w)
	switch t {
	case Item:
		return NumItems
	case Warehouse:
		return W
	case District:
		return W * DistrictsPerWarehouse
	case Customer, History:
		return W * DistrictsPerWarehouse * CustomersPerDistrict
	case Orders:
		return W * DistrictsPerWarehouse * OrdersPerDistrict
	case NewOrders:
		return W * DistrictsPerWarehouse * NewOrdersPerDistrict
	case OrderLine:
		return W * DistrictsPerWarehouse * OrdersPerDistrict * (MinOrderLines + MaxOrderLines) / 2
	case Stock:
		return W * StockPerWarehouse
	}
	return 0
}
