// Package auth issues, parses and verifies API tokens and resolves a bearer
// token to the member it acts for. It has no HTTP dependency: the CLI uses it
// too.
//
// Token format: a scope prefix ("snr_" read, "snw_" write), 43 base62
// characters of randomness (256 bits) and a 6-character base62 CRC-32 of
// everything before it, so look-alikes are rejected without a database
// round trip and secret scanners can find leaked tokens. Only the SHA-256 of
// the whole token is stored.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"math/big"
	"strings"
)

// Scope is what a token may do: read, or write (which implies read).
type Scope string

// The two scopes.
const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
)

// Allows reports whether a token of scope s may perform an operation that
// requires need.
func (s Scope) Allows(need Scope) bool {
	return need == ScopeRead || s == ScopeWrite
}

const (
	alphabet     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randomLen    = 43 // 62^43 > 2^256
	checksumLen  = 6  // 62^6 > 2^32
	prefixLen    = 4
	TokenLength  = prefixLen + randomLen + checksumLen
	readPrefix   = "snr_"
	writePrefix  = "snw_"
	displayChars = 10
)

func prefixOf(s Scope) string {
	if s == ScopeWrite {
		return writePrefix
	}
	return readPrefix
}

// Generate returns a new random token of scope s.
func Generate(s Scope) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	body := encode(new(big.Int).SetBytes(b), randomLen)
	head := prefixOf(s) + body
	return head + checksum(head), nil
}

// Derive returns the token of scope s whose 256 random bits are the SHA-256
// of seed: the same seed always gives the same well-formed token. It exists
// for synthetic data sets, whose load generators must know every member's
// token without a list of secrets; such tokens are only as secret as their
// seeds, so never derive the tokens of real members.
func Derive(s Scope, seed []byte) string {
	sum := sha256.Sum256(seed)
	head := prefixOf(s) + encode(new(big.Int).SetBytes(sum[:]), randomLen)
	return head + checksum(head)
}

// Parse checks a token's shape (prefix, length, alphabet, checksum) and
// returns the scope its prefix claims. The claim is not trusted: the stored
// scope decides.
func Parse(tok string) (Scope, bool) {
	if len(tok) != TokenLength {
		return "", false
	}
	var s Scope
	switch tok[:prefixLen] {
	case readPrefix:
		s = ScopeRead
	case writePrefix:
		s = ScopeWrite
	default:
		return "", false
	}
	for i := prefixLen; i < len(tok); i++ {
		if strings.IndexByte(alphabet, tok[i]) < 0 {
			return "", false
		}
	}
	head := tok[:prefixLen+randomLen]
	if checksum(head) != tok[prefixLen+randomLen:] {
		return "", false
	}
	return s, true
}

// Hash is what the database stores and looks tokens up by.
func Hash(tok string) []byte {
	h := hashKey(tok)
	return h[:]
}

// hashKey is Hash as an array: the key of the recalled principals too.
func hashKey(tok string) [sha256.Size]byte { return sha256.Sum256([]byte(tok)) }

// DisplayPrefix is the part of a token that may be shown in listings.
func DisplayPrefix(tok string) string {
	if len(tok) < displayChars {
		return tok
	}
	return tok[:displayChars]
}

func checksum(head string) string {
	return encode(new(big.Int).SetUint64(uint64(crc32.ChecksumIEEE([]byte(head)))), checksumLen)
}

// encode writes n in base62, left-padded with '0' to width.
func encode(n *big.Int, width int) string {
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = alphabet[mod.Int64()]
	}
	return string(out)
}
