package budget

import (
	"math"
	"strings"
)

// Prices are per-million-token prices in USD. Zero means unknown: cost is only
// enforced when the input and output prices are positive.
type Prices struct {
	InputPerMillionUSD float64
	// CachedInputPerMillionUSD prices cache reads; 0 charges them at the
	// input price.
	CachedInputPerMillionUSD float64
	OutputPerMillionUSD      float64
}

// ModelPrice is one model_prices entry. A nil field falls back to the flat
// price of the same direction, then to the built-in table, so an entry may
// override just one side.
type ModelPrice struct {
	InputPerMillionUSD       *float64
	CachedInputPerMillionUSD *float64
	OutputPerMillionUSD      *float64
}

// PriceRow is one model's built-in list price, in USD per million tokens,
// and where it was read.
type PriceRow struct {
	Model                      string   // the provider's id
	Aliases                    []string // other ids routers and dated snapshots use
	Input, CachedInput, Output float64
	Source                     string // the pages the figures come from, and their dates
}

// ResolvePrices picks the prices for model, field by field: an exact
// (case-sensitive) perModel entry, then the flat pair (a positive field),
// then the built-in table (LookupPrice). A cached-input price follows its
// input price: an input price set in the config without a cached one
// charges cache reads at that input price. Prices are resolved once per run.
func ResolvePrices(model string, flat Prices, perModel map[string]ModelPrice) Prices {
	var p Prices
	if r := LookupPrice(model); r != nil {
		p = Prices{InputPerMillionUSD: r.Input, CachedInputPerMillionUSD: r.CachedInput, OutputPerMillionUSD: r.Output}
	}
	if flat.InputPerMillionUSD > 0 {
		p.InputPerMillionUSD, p.CachedInputPerMillionUSD = flat.InputPerMillionUSD, flat.CachedInputPerMillionUSD
	}
	if flat.OutputPerMillionUSD > 0 {
		p.OutputPerMillionUSD = flat.OutputPerMillionUSD
	}
	mp, ok := perModel[model]
	if !ok {
		return p
	}
	if mp.InputPerMillionUSD != nil {
		p.InputPerMillionUSD, p.CachedInputPerMillionUSD = *mp.InputPerMillionUSD, 0
	}
	if mp.CachedInputPerMillionUSD != nil {
		p.CachedInputPerMillionUSD = *mp.CachedInputPerMillionUSD
	}
	if mp.OutputPerMillionUSD != nil {
		p.OutputPerMillionUSD = *mp.OutputPerMillionUSD
	}
	return p
}

// LookupPrice finds model in the built-in table: by id or alias, ignoring
// case, then without a router's "provider/" prefix ("openai/gpt-4o-mini"),
// then without a snapshot suffix ("-2024-07-18", "-20250514", "-0709",
// "-001", "@20250514", "-latest", "-preview"). An exact row wins over a
// stripped one, so a snapshot priced differently keeps its own row. Nil
// when the model is not in the table. Linear: it runs once per run.
func LookupPrice(model string) *PriceRow {
	id := model
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		if r := findPrice(id); r != nil {
			return r
		}
		id = id[i+1:]
	}
	for {
		if r := findPrice(id); r != nil {
			return r
		}
		shorter := stripSnapshot(id)
		if shorter == id || shorter == "" {
			return nil
		}
		id = shorter
	}
}

func findPrice(id string) *PriceRow {
	for i := range builtinPrices {
		r := &builtinPrices[i]
		if strings.EqualFold(r.Model, id) {
			return r
		}
		for _, a := range r.Aliases {
			if strings.EqualFold(a, id) {
				return r
			}
		}
	}
	return nil
}

// stripSnapshot removes one snapshot suffix from id, or returns it as is.
func stripSnapshot(id string) string {
	l := strings.ToLower(id)
	for _, suf := range []string{"-latest", "-preview", "-exp"} {
		if strings.HasSuffix(l, suf) {
			return id[:len(id)-len(suf)]
		}
	}
	// -YYYY-MM-DD, and the -MM-DD of "…-preview-05-20".
	if n := len(id); n > 6 && isDigits(id[n-2:]) && id[n-3] == '-' && isDigits(id[n-5:n-3]) && id[n-6] == '-' {
		if n > 11 && isDigits(id[n-10:n-6]) && id[n-11] == '-' {
			return id[:n-11]
		}
		return id[:n-6]
	}
	// -20250514, @20250514, -0709, -2411, -001.
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	if digits := len(id) - i; i > 0 && (id[i-1] == '-' || id[i-1] == '@') && (digits == 3 || digits == 4 || digits == 8) {
		return id[:i-1]
	}
	return id
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
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
// token counts at the given micro-USD-per-million prices. Splitting tokens
// into millions and a remainder keeps every product far from int64 overflow
// for realistic prices, and computing from cumulative tokens (not summing
// per-response costs) avoids rounding drift.
func costMicro(inTok, cachedTok, outTok, inPrice, cachedPrice, outPrice int64) int64 {
	const m = 1_000_000
	whole := satAdd(satAdd(satMul(inTok/m, inPrice), satMul(cachedTok/m, cachedPrice)), satMul(outTok/m, outPrice))
	frac := satAdd(satAdd(satMul(inTok%m, inPrice), satMul(cachedTok%m, cachedPrice)), satMul(outTok%m, outPrice))
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
