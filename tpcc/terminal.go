package tpcc

import "context"

// Terminal is one emulated terminal: its deck, its input generator and the
// input and result structs of every transaction type, reused from one
// transaction to the next so the per-transaction path does not allocate.
type Terminal struct {
	Inputs *Inputs
	Deck   *Deck

	NewOrderIn     NewOrderInput
	NewOrderOut    NewOrderResult
	PaymentIn      PaymentInput
	PaymentOut     PaymentResult
	OrderStatusIn  OrderStatusInput
	OrderStatusOut OrderStatusResult
	DeliveryIn     DeliveryInput
	DeliveryOut    DeliveryResult
	StockLevelIn   StockLevelInput
	StockLevelOut  StockLevelResult
}

// NewTerminal returns a terminal with home warehouse home and Stock-Level
// district dist in a database of warehouses warehouses; r drives both the
// deck and the inputs.
func NewTerminal(r *Rand, c Constants, warehouses, home, dist int) *Terminal {
	return &Terminal{Inputs: NewInputs(r, c, warehouses, home, dist), Deck: NewDeck(r)}
}

// Next deals the next card and draws that transaction's inputs.
func (t *Terminal) Next() TxnType { return t.Prepare(t.Deck.Deal()) }

// Prepare draws the inputs of a transaction of type typ without dealing a
// card (the one a terminal was keying when its step began, see
// SteadyStart) and returns typ.
func (t *Terminal) Prepare(typ TxnType) TxnType {
	switch typ {
	case NewOrderTxn:
		t.Inputs.NewOrder(&t.NewOrderIn)
	case PaymentTxn:
		t.Inputs.Payment(&t.PaymentIn)
	case OrderStatusTxn:
		t.Inputs.OrderStatus(&t.OrderStatusIn)
	case DeliveryTxn:
		t.Inputs.Delivery(&t.DeliveryIn)
	default:
		t.Inputs.StockLevel(&t.StockLevelIn)
	}
	return typ
}

// Exec runs transaction typ with the inputs Next drew (again, on a retry).
func (t *Terminal) Exec(ctx context.Context, ex Executor, typ TxnType) error {
	switch typ {
	case NewOrderTxn:
		return ex.NewOrder(ctx, &t.NewOrderIn, &t.NewOrderOut)
	case PaymentTxn:
		return ex.Payment(ctx, &t.PaymentIn, &t.PaymentOut)
	case OrderStatusTxn:
		return ex.OrderStatus(ctx, &t.OrderStatusIn, &t.OrderStatusOut)
	case DeliveryTxn:
		return ex.Delivery(ctx, &t.DeliveryIn, &t.DeliveryOut)
	default:
		return ex.StockLevel(ctx, &t.StockLevelIn, &t.StockLevelOut)
	}
}
