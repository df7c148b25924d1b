package capacity

// station is one resource a transaction visits.
type station struct {
	// name is the resource as a prediction names its limit.
	name string
	// demand is the seconds a transaction spends in service there (queue;
	// its utilisation is throughput × demand), or the seconds it waits
	// there (delay).
	demand float64
	// queue tells the station queues (its residence grows with the users
	// waiting there); false is a pure delay.
	queue bool
}

// solution is what mean value analysis gives for a closed network.
type solution struct {
	// x is the throughput, transactions per second.
	x float64
	// r is the response time per transaction, seconds (think time not
	// included).
	r float64
	// queue is the mean number of transactions at each named station.
	queue map[string]float64
	// sc are the scales the network was solved with (calibrated.solve).
	sc scales
}

// mva solves the closed network of users users thinking think seconds per
// transaction by exact mean value analysis: for n = 1..users the residence
// at a queue is D·(1 + Q(n−1)), at a delay D; X(n) = n / (Z + Σ R); Q = X·R.
func mva(stations []station, users int, think float64) solution {
	q := make([]float64, len(stations))
	var sol solution
	for n := 1; n <= users; n++ {
		sol.r = 0
		res := make([]float64, len(stations))
		for k, s := range stations {
			res[k] = s.demand
			if s.queue {
				res[k] *= 1 + q[k]
			}
			sol.r += res[k]
		}
		if think+sol.r <= 0 {
			return solution{}
		}
		sol.x = float64(n) / (think + sol.r)
		for k := range stations {
			q[k] = sol.x * res[k]
		}
	}
	sol.queue = map[string]float64{}
	for k, s := range stations {
		sol.queue[s.name] += q[k]
	}
	return sol
}

// busiest returns the queue with the highest utilisation at throughput x,
// and that utilisation.
func busiest(stations []station, x float64) (name string, util float64) {
	for _, s := range stations {
		if !s.queue {
			continue
		}
		if u := x * s.demand; u > util {
			name, util = s.name, u
		}
	}
	return name, util
}
