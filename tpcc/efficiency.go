package tpcc

// KeyedNOPMPerUser is the most New-Orders a user with keying and think
// times completes per minute: the deck's New-Orders over the time a pass
// through the deck takes (each card's keying time and mean think time)
// with no response time at all. It is clause 12.86's bound, 12.86 tpmC per
// warehouse of 10 terminals on a 45 % New-Order mix; this deck's 43.5 %
// gives 1.260 per user, 12.60 per warehouse.
func KeyedNOPMPerUser() float64 {
	var pass float64 // seconds
	for t, n := range DeckCards {
		pass += float64(n) * (keying[t] + meanThink[t]).Seconds()
	}
	return 60 * float64(DeckCards[NewOrderTxn]) / pass
}

// KeyedEfficiency is the NOPM of keyed users as a percentage of the most
// they can complete (users × KeyedNOPMPerUser): CockroachDB's tpcc
// "efficiency". It falls as response times add to the users' cycles; 0
// for no users.
func KeyedEfficiency(nopm float64, users int) float64 {
	if users <= 0 {
		return 0
	}
	return 100 * nopm / (float64(users) * KeyedNOPMPerUser())
}
