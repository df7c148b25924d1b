package tpcc

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"
)

// TxnType is one of the five transactions.
type TxnType uint8

// The five transaction types, in report order.
const (
	NewOrderTxn TxnType = iota
	PaymentTxn
	OrderStatusTxn
	DeliveryTxn
	StockLevelTxn
	NumTxnTypes
)

var txnNames = [NumTxnTypes]string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// String returns the snake_case name used in JSON and the store.
func (t TxnType) String() string { return txnNames[t] }

// OrderLineInput is one line of a New-Order.
type OrderLineInput struct {
	Number    int32 // OL_NUMBER: the position at which the line was drawn, 1-based
	ItemID    int32
	SupplyWID int32
	Quantity  int32
}

// NewOrderInput holds the inputs of clause 2.4.1. Every OL_I_ID is drawn
// independently (an item may appear twice, clause 2.4.1.5); the lines are
// then sorted by (supply warehouse, item) so concurrent orders lock stock in
// one order, each keeping the OL_NUMBER it was drawn with, and the invalid
// item of a rolled-back order sorts last.
type NewOrderInput struct {
	WID, DID, CID int32
	Lines         []OrderLineInput
	AllLocal      bool
}

// NewOrderLine is the output of one order line (clause 2.4.3.3), in the
// order of NewOrderInput.Lines.
type NewOrderLine struct {
	ItemName     string  // I_NAME
	StockQty     int32   // S_QUANTITY after the update
	BrandGeneric byte    // 'B' when I_DATA and S_DATA both contain "ORIGINAL", else 'G'
	Price        float64 // I_PRICE
	Amount       float64 // OL_AMOUNT
}

// NewOrderResult is what a New-Order returns: the data of the output screen
// of clause 2.4.3.3. After the simulated user error only RolledBack is
// set (the screen then shows only the customer and the error).
type NewOrderResult struct {
	OID        int32
	Total      float64 // display total, clause 2.4.2.2
	RolledBack bool    // the simulated user error (unused item) rolled it back
	CLast      string
	Credit     string
	Discount   float64
	WTax, DTax float64
	Lines      []NewOrderLine
}

// Brand is the brand-generic field of clause 2.4.2.2.
func Brand(iData, sData string) byte {
	if strings.Contains(iData, "ORIGINAL") && strings.Contains(sData, "ORIGINAL") {
		return 'B'
	}
	return 'G'
}

// NewStockQuantity is S_QUANTITY after a line of quantity qty takes stock
// from a row holding have (clause 2.4.2.2).
func NewStockQuantity(have, qty int32) int32 {
	if have >= qty+10 {
		return have - qty
	}
	return have - qty + 91
}

// Address is a street address of a warehouse, district or customer.
type Address struct {
	Street1, Street2, City, State, Zip string
}

// PaymentInput holds the inputs of clause 2.5.1.
type PaymentInput struct {
	WID, DID   int32
	CWID, CDID int32
	CID        int32  // when !ByName
	CLast      string // when ByName
	ByName     bool
	Amount     float64 // [1.00, 5000.00], two decimals
}

// PaymentResult is what a Payment returns: the data of the output screen
// of clause 2.5.3.3.
type PaymentResult struct {
	CID                 int32
	Balance             float64
	Warehouse, District Address
	Customer            Address
	First, Middle, Last string
	Phone, Credit       string
	CreditLim, Discount float64
	Data                string // the first 200 characters of C_DATA when C_CREDIT is "BC", else ""
}

// OrderStatusInput holds the inputs of clause 2.6.1.
type OrderStatusInput struct {
	WID, DID int32
	CID      int32
	CLast    string
	ByName   bool
}

// OrderStatusLine is one order line of an Order-Status (clause 2.6.2.2).
type OrderStatusLine struct {
	ItemID, SupplyWID, Quantity int32
	Amount                      float64
	Delivered                   bool // OL_DELIVERY_D is not NULL
}

// OrderStatusResult is what an Order-Status returns: the data of the
// output screen of clause 2.6.3.3.
type OrderStatusResult struct {
	CID                 int32
	Balance             float64
	First, Middle, Last string
	OID                 int32
	Carrier             int32 // 0 when not delivered
	Lines               []OrderStatusLine
}

// DeliveryInput holds the inputs of clause 2.7.1.
type DeliveryInput struct {
	WID       int32
	CarrierID int32
}

// DeliveryResult is what a Delivery returns.
type DeliveryResult struct {
	Delivered int32 // districts with an order delivered
	Skipped   int32 // districts with no undelivered order (clause 2.7.4.2)
}

// StockLevelInput holds the inputs of clause 2.8.1.
type StockLevelInput struct {
	WID, DID  int32
	Threshold int32
}

// StockLevelResult is what a Stock-Level returns.
type StockLevelResult struct {
	LowStock int32
}

// Executor runs the five transactions on one database connection. Engines
// implement it once per mode (stored procedures, client-side statements). A
// New-Order with an unused item returns RolledBack=true and a nil error.
// The strings of a result may alias the executor's buffers (ScreenText):
// valid until its next call of the same transaction type.
type Executor interface {
	NewOrder(ctx context.Context, in *NewOrderInput, out *NewOrderResult) error
	Payment(ctx context.Context, in *PaymentInput, out *PaymentResult) error
	OrderStatus(ctx context.Context, in *OrderStatusInput, out *OrderStatusResult) error
	Delivery(ctx context.Context, in *DeliveryInput, out *DeliveryResult) error
	StockLevel(ctx context.Context, in *StockLevelInput, out *StockLevelResult) error
	Close(ctx context.Context) error
}

// ErrNoSuchCustomer is returned when a by-name lookup finds nobody (cannot
// happen on a correctly built database).
var ErrNoSuchCustomer = errors.New("tpcc: no customer with that last name")

// Inputs draws transaction inputs for one terminal (virtual user): a fixed
// home warehouse and, for Stock-Level, a fixed district (clause 2.8.1).
type Inputs struct {
	r          *Rand
	c          Constants
	warehouses int
	home, dist int32
}

// NewInputs returns an input generator for a terminal with home warehouse
// home and district dist, in a database of warehouses warehouses.
func NewInputs(r *Rand, c Constants, warehouses int, home, dist int) *Inputs {
	return &Inputs{r: r, c: c, warehouses: warehouses, home: int32(home), dist: int32(dist)}
}

func (g *Inputs) otherWarehouse() int32 {
	w := int32(g.r.Int(1, g.warehouses-1))
	if w >= g.home {
		w++
	}
	return w
}

func (g *Inputs) customerID() int32 { return int32(g.r.NURand(ACID, g.c.CID, 1, CustomersPerDistrict)) }
func (g *Inputs) lastName() string  { return LastName(g.r.NURand(ALast, g.c.CLastRun, 0, 999)) }

// NewOrder fills in (reusing its Lines slice). Each item id is drawn
// independently, as clause 2.4.1.5 says.
func (g *Inputs) NewOrder(in *NewOrderInput) {
	in.WID = g.home
	in.DID = int32(g.r.Int(1, DistrictsPerWarehouse))
	in.CID = g.customerID()
	n := g.r.Int(MinOrderLines, MaxOrderLines)
	rollback := g.r.Int(1, 100) == 1
	in.Lines = in.Lines[:0]
	in.AllLocal = true
	for i := 0; i < n; i++ {
		item := int32(InvalidItemID)
		if !rollback || i < n-1 {
			item = int32(g.r.NURand(AItem, g.c.CItem, 1, NumItems))
		}
		supply := g.home
		if g.warehouses > 1 && g.r.Int(1, 100) == 1 {
			supply = g.otherWarehouse()
			in.AllLocal = false
		}
		in.Lines = append(in.Lines, OrderLineInput{Number: int32(i + 1), ItemID: item, SupplyWID: supply, Quantity: int32(g.r.Int(1, 10))})
	}
	sortLines(in.Lines)
}

// sortLines orders a New-Order's lines by supply warehouse, then item,
// then line number, with the invalid item (a rollback's) last, so that
// concurrent New-Orders take their stock rows in one order. The order is
// total, so any sort gives the same lines; an insertion sort with the
// comparison inlined suits at most 15 lines better than slices.SortFunc's
// calls through a closure.
func sortLines(lines []OrderLineInput) {
	for i := 1; i < len(lines); i++ {
		l, j := lines[i], i
		for ; j > 0 && lineBefore(&l, &lines[j-1]); j-- {
			lines[j] = lines[j-1]
		}
		lines[j] = l
	}
}

// lineBefore reports whether a sorts before b (sortLines).
func lineBefore(a, b *OrderLineInput) bool {
	switch {
	case a.ItemID == InvalidItemID || b.ItemID == InvalidItemID:
		return a.ItemID < b.ItemID
	case a.SupplyWID != b.SupplyWID:
		return a.SupplyWID < b.SupplyWID
	case a.ItemID != b.ItemID:
		return a.ItemID < b.ItemID
	}
	return a.Number < b.Number
}

// Payment fills in.
func (g *Inputs) Payment(in *PaymentInput) {
	in.WID = g.home
	in.DID = int32(g.r.Int(1, DistrictsPerWarehouse))
	in.Amount = float64(g.r.Int(100, 500000)) / 100
	if g.warehouses == 1 || g.r.Int(1, 100) <= 85 {
		in.CWID, in.CDID = in.WID, in.DID
	} else {
		in.CWID = g.otherWarehouse()
		in.CDID = int32(g.r.Int(1, DistrictsPerWarehouse))
	}
	in.ByName, in.CID, in.CLast = g.customer()
}

// customer picks the customer of a Payment or an Order-Status: by last
// name 60 % of the time, else by id (clauses 2.5.1.2 and 2.6.1.2).
func (g *Inputs) customer() (byName bool, id int32, last string) {
	if g.r.Int(1, 100) <= 60 {
		return true, 0, g.lastName()
	}
	return false, g.customerID(), ""
}

// OrderStatus fills in.
func (g *Inputs) OrderStatus(in *OrderStatusInput) {
	in.WID = g.home
	in.DID = int32(g.r.Int(1, DistrictsPerWarehouse))
	in.ByName, in.CID, in.CLast = g.customer()
}

// Delivery fills in.
func (g *Inputs) Delivery(in *DeliveryInput) {
	in.WID = g.home
	in.CarrierID = int32(g.r.Int(1, 10))
}

// StockLevel fills in.
func (g *Inputs) StockLevel(in *StockLevelInput) {
	in.WID = g.home
	in.DID = g.dist
	in.Threshold = int32(g.r.Int(10, 20))
}

// DeckCards is the composition of the deck: the 23-card deck of clause
// 5.2.4.2 (10 New-Order, 10 Payment, 1 Order-Status, 1 Delivery,
// 1 Stock-Level: 43.48 % / 43.48 % / 4.35 % each), which keeps every share
// above the minimums of clause 5.2.3 (Payment 43 %, the others 4 %) over
// any interval, where a 45/43/4/4/4 deck sits exactly on them.
var DeckCards = [NumTxnTypes]int{10, 10, 1, 1, 1}

// deckSize is the number of cards in the deck.
const deckSize = 23

// Deck deals transaction types from a shuffled deck of DeckCards,
// reshuffled when exhausted (clause 5.2.4.2).
type Deck struct {
	r     *Rand
	cards [deckSize]TxnType
	next  int
}

// NewDeck returns a shuffled deck.
func NewDeck(r *Rand) *Deck {
	d := &Deck{r: r}
	i := 0
	for t, n := range DeckCards {
		for range n {
			d.cards[i] = TxnType(t)
			i++
		}
	}
	d.shuffle()
	return d
}

func (d *Deck) shuffle() {
	d.r.Shuffle(len(d.cards), func(i, j int) { d.cards[i], d.cards[j] = d.cards[j], d.cards[i] })
	d.next = 0
}

// Deal returns the next card.
func (d *Deck) Deal() TxnType {
	if d.next == len(d.cards) {
		d.shuffle()
	}
	t := d.cards[d.next]
	d.next++
	return t
}

var keying = [NumTxnTypes]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
var meanThink = [NumTxnTypes]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}

// MeanKeyingThinking is the mean keying plus think time a user spends
// per transaction over the deck's mix (clauses 5.2.5.4 and 5.2.5.7): the
// think time of the closed system a capacity model solves.
func MeanKeyingThinking() time.Duration {
	var sum time.Duration
	for t, n := range DeckCards {
		sum += time.Duration(n) * (keying[t] + meanThink[t])
	}
	return sum / deckSize
}

// KeyingTime is the minimum keying time of clause 5.2.5.7.
func KeyingTime(t TxnType) time.Duration { return keying[t] }

// ThinkTime draws a think time from the negative exponential distribution
// of clause 5.2.5.4, truncated at 10 times the mean.
func ThinkTime(t TxnType, r *Rand) time.Duration {
	mean := float64(meanThink[t])
	return time.Duration(math.Min(expDraw(r, mean), 10*mean))
}
