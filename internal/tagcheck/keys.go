package tagcheck

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Keys checks that every key of a struct tag is one of known. An unknown key
// is an error with a "did you mean" suggestion when one is close; so is a
// repeated key (reflect.StructTag.Get sees only the first) and a tag that is
// not in the conventional key:"value" format (Get silently stops there).
func Keys(tag reflect.StructTag, known []string) error {
	keys, err := tagKeys(string(tag))
	if err != nil {
		return err
	}
	isKnown := set(known...)
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			return fmt.Errorf("duplicate tag key %q (only the first is read)", k)
		}
		seen[k] = true
		if isKnown[k] {
			continue
		}
		if s := Suggest(k, known); s != "" {
			return fmt.Errorf("unknown tag key %q (did you mean %q?)", k, s)
		}
		return fmt.Errorf("unknown tag key %q", k)
	}
	return nil
}

// tagKeys parses tag as reflect.StructTag.Lookup does, but reports where
// Lookup would silently give up.
func tagKeys(tag string) ([]string, error) {
	var keys []string
	for tag != "" {
		if len(keys) > 0 && tag[0] != ' ' {
			return nil, fmt.Errorf("malformed struct tag: key:\"value\" pairs must be separated by spaces at %q", tag)
		}
		key, quoted, rest, err := Next(tag)
		if err != nil {
			return nil, err
		}
		if key == "" {
			break
		}
		if _, err := strconv.Unquote(quoted); err != nil {
			return nil, fmt.Errorf("malformed struct tag: value of key %q is not a valid Go string: %s", key, quoted)
		}
		tag = rest
		keys = append(keys, key)
	}
	return keys, nil
}

// Next reads the first key:"value" pair of tag as reflect.StructTag.Lookup
// does: spaces before it are skipped, a key ends at a colon and may not
// hold a space, a quote or a control character, and a value ends at its
// first unescaped quote. It returns the key, the value still quoted and
// the rest of tag; an empty key and no error when tag holds only spaces,
// and an error that says why where Lookup would stop.
func Next(tag string) (key, quoted, rest string, err error) {
	i := 0
	for i < len(tag) && tag[i] == ' ' {
		i++
	}
	tag = tag[i:]
	if tag == "" {
		return "", "", "", nil
	}
	i = 0
	for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
		i++
	}
	if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
		return "", "", "", fmt.Errorf("malformed struct tag: want key:\"value\" at %q", tag)
	}
	key, tag = tag[:i], tag[i+1:]
	i = 1
	for i < len(tag) && tag[i] != '"' {
		if tag[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(tag) {
		return "", "", "", fmt.Errorf("malformed struct tag: unterminated value of key %q", key)
	}
	return key, tag[:i+1], tag[i+1:], nil
}

// schemaKeys are the tag keys invopop/jsonschema reads besides json.
var schemaKeys = []string{"jsonschema", "jsonschema_description", "jsonschema_extras"}

// otherJSONish are other packages' tag keys one edit from json: bson
// (MongoDB) and yson (YTsaurus). A key on this list is not a typo of json.
var otherJSONish = []string{"bson", "yson"}

// MeantKey returns the key a struct tag key that is not read was probably
// meant to be: json for a key one edit or transposition from it in any case
// ("josn", "jsn", "son", "JSON"), unless another package reads that key
// (otherJSONish); or one of invopop/jsonschema's keys for a key within two
// edits of it ("json_schema", "jsonschem"). Any other key is another
// package's, and "" is returned.
func MeantKey(key string) string {
	if key == "json" || slices.Contains(schemaKeys, key) {
		return ""
	}
	lower := strings.ToLower(key)
	if lower == "json" || (osa([]rune(lower), []rune("json")) == 1 && !slices.Contains(otherJSONish, lower)) {
		return "json"
	}
	if len(key) < len("jsonschema")-2 {
		return ""
	}
	return Suggest(key, schemaKeys)
}

// Suggest returns the candidate closest to word, or "" when none is within
// edit distance 2. Letters are compared case-insensitively, and any case
// difference adds 1, so "Description" and "DESCRIPTION" are one edit from
// "description". A transposition counts as one edit. Ties go to the earlier
// candidate. A distance as large as the word itself is no suggestion ("ab"
// is not a typo of "id").
func Suggest(word string, candidates []string) string {
	n := utf8.RuneCountInString(word)
	best, bestDist := "", 3
	for _, c := range candidates {
		d := distance(word, c)
		if d < bestDist && d < n {
			best, bestDist = c, d
		}
	}
	return best
}

func distance(a, b string) int {
	folded := osa([]rune(strings.ToLower(a)), []rune(strings.ToLower(b)))
	if osa([]rune(a), []rune(b)) > folded {
		folded++
	}
	return folded
}

// osa is the optimal string alignment distance: Levenshtein plus adjacent
// transpositions, the usual typo model.
func osa(a, b []rune) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
