package apiurl

import (
	"strconv"
	"strings"

	"golang.org/x/text/currency"

	"github.com/socialnet/socialapi/gen"
)

// Money renders an amount in minor units as both the integer and an exact
// decimal string in major units, using the currency's ISO 4217 exponent
// (2 when the code is unknown). No float is ever involved.
func Money(minor int64, cur string) gen.Money {
	scale := 2
	if u, err := currency.ParseISO(cur); err == nil {
		scale, _ = currency.Standard.Rounding(u)
	}
	s := strconv.FormatInt(minor, 10)
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	return gen.Money{AmountMinor: minor, Amount: s, Currency: cur}
}

// ReactionCounts renders the six per-type counters.
func ReactionCounts(like, love, haha, wow, sad, angry int64) gen.ReactionCounts {
	return gen.ReactionCounts{Like: int(like), Love: int(love), Haha: int(haha), Wow: int(wow), Sad: int(sad), Angry: int(angry)}
}
