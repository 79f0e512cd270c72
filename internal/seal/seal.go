// Package seal checks state that a program stores outside its process and
// reads back: it authenticates it with an HMAC-SHA256 over a canonical
// JSON encoding and what the caller says it belongs to (an owner, not
// stored with it), under keys named by id so that they can be rotated
// (Keys), and claims a value once per process (Once).
package seal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolcall-go/toolcall/internal/check"
)

// MinKeyBytes is the shortest key taken: HMAC-SHA256 is as strong as
// its hash only with a key of the hash's size.
const MinKeyBytes = 32

// Keys seals with its current key and opens with any of its keys. Nil
// Keys are a program that does not seal: they seal nothing, and refuse
// what is sealed.
type Keys struct {
	current string
	keys    map[string][]byte
}

// New returns Keys that seal with keys[current]. Key ids are non-empty and
// hold no '.', and every key has at least MinKeyBytes bytes.
func New(current string, keys map[string][]byte) (*Keys, error) {
	if _, ok := keys[current]; !ok {
		return nil, fmt.Errorf("the current key id %q is not among the keys", current)
	}
	k := &Keys{current: current, keys: make(map[string][]byte, len(keys))}
	for id, key := range keys {
		if id == "" || strings.Contains(id, ".") {
			return nil, fmt.Errorf("key id %q: an id is non-empty and holds no '.'", id)
		}
		if len(key) < MinKeyBytes {
			return nil, fmt.Errorf("key %q has %d bytes, fewer than %d", id, len(key), MinKeyBytes)
		}
		k.keys[id] = append([]byte(nil), key...)
	}
	return k, nil
}

// Errors of Open.
var (
	ErrUnsealed   = errors.New("it is not sealed")
	ErrNoKeys     = errors.New("it is sealed, and the client has no seal keys (WithSealKeys)")
	ErrUnknownKey = errors.New("it is sealed with a key that is not held")
	// The seal alone cannot tell these apart: another key of the same id,
	// another owner and an edit all change the HMAC.
	ErrEdited = errors.New("its seal does not match: it was sealed with another key of that id, or for another owner, or edited after it was sealed")
)

// Seal returns the seal of v for owner: "<key id>.<base64url of the
// HMAC>"; nil Keys return "".
func (k *Keys) Seal(v any, owner string) (string, error) {
	if k == nil {
		return "", nil
	}
	c, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return k.current + "." + base64.RawURLEncoding.EncodeToString(mac(k.current, k.keys[k.current], owner, c)), nil
}

// Open checks that seal is v's for owner, under any of the keys; nil Keys
// take only an empty seal.
func (k *Keys) Open(v any, owner, seal string) error {
	if k == nil {
		if seal != "" {
			return ErrNoKeys
		}
		return nil
	}
	if seal == "" {
		return ErrUnsealed
	}
	id, sum, ok := strings.Cut(seal, ".")
	key, held := k.keys[id]
	if !ok || !held {
		return fmt.Errorf("%w (key id %q)", ErrUnknownKey, id)
	}
	got, err := base64.RawURLEncoding.DecodeString(sum)
	if err != nil {
		return ErrEdited
	}
	c, err := Canonical(v)
	if err != nil {
		return err
	}
	if !hmac.Equal(got, mac(id, key, owner, c)) {
		return ErrEdited
	}
	return nil
}

// mac binds the purpose, the key id and the owner into the sum, so that a
// seal is valid for nothing else. The owner goes in with its length, so
// that no owner and value can pass for another pair.
func mac(id string, key []byte, owner string, canonical []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("toolcall sealed state v2\x00" + id + "\x00" + strconv.Itoa(len(owner)) + ":" + owner))
	h.Write(canonical)
	return h.Sum(nil)
}

// Canonical encodes v as JSON that every JSON round trip of v that keeps
// its values encodes to again: object keys sorted (a struct's fields and a
// map's keys alike), numbers exactly, whatever digits spell them (1e2 and
// 100 are one number; 2^53+1 and 2^53 are two, as are 0.1 and
// 0.10000000000000001). A value stored as JSON and decoded into the same
// Go types thus seals as it did before, and an edit of any value, however
// small, does not.
func Canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return check.Canonical(b)
}
