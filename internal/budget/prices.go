package budget

import "math"

// Prices are per-million-token prices in USD. Zero means unknown: cost is only
// enforced when both resolved prices are positive.
type Prices struct {
	InputPerMillionUSD  float64
	OutputPerMillionUSD float64
}

// ModelPrice is one model_prices entry. A nil field falls back to the flat
// price of the same direction, so an entry may override just one side.
type ModelPrice struct {
	InputPerMillionUSD  *float64
	OutputPerMillionUSD *float64
}

// ResolvePrices picks the prices for model: an exact (case-sensitive)
// perModel key overrides the flat pair field by field; any other model uses
// the flat pair. Prices are resolved once per run.
func ResolvePrices(model string, flat Prices, perModel map[string]ModelPrice) Prices {
	mp, ok := perModel[model]
	if !ok {
		return flat
	}
	p := flat
	if mp.InputPerMillionUSD != nil {
		p.InputPerMillionUSD = *mp.InputPerMillionUSD
	}
	if mp.OutputPerMillionUSD != nil {
		p.OutputPerMillionUSD = *mp.OutputPerMillionUSD
	}
	return p
}

// microPerMillion converts a per-million USD price to micro-USD per million
// tokens, which is also pico-USD per token. Negative or NaN prices count as
// unknown.
func microPerMillion(usd float64) int64 {
	if !(usd > 0) {
		return 0
	}
	return toMicro(usd)
}

// toMicro rounds a USD amount to whole micro-USD, saturating instead of
// overflowing.
func toMicro(usd float64) int64 {
	v := math.Round(usd * 1e6)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	if v <= 0 {
		return 0
	}
	return int64(v)
}

// costMicro is the exact cost in micro-USD (rounded half up) of the given
// token counts. Splitting tokens into millions and a remainder keeps every
// product far from int64 overflow for realistic prices, and computing from
// cumulative tokens (not summing per-response costs) avoids rounding drift.
func costMicro(inTok, outTok, inPrice, outPrice int64) int64 {
	const m = 1_000_000
	whole := satAdd(satMul(inTok/m, inPrice), satMul(outTok/m, outPrice))
	frac := satAdd(satMul(inTok%m, inPrice), satMul(outTok%m, outPrice))
	return satAdd(whole, satAdd(frac, m/2)/m)
}

func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
