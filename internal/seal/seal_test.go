package seal

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	key1 = bytes.Repeat([]byte{1}, 32)
	key2 = bytes.Repeat([]byte{2}, 32)
)

type state struct {
	B     string         `json:"b"`
	A     int            `json:"a"`
	Extra map[string]any `json:"extra,omitempty"`
}

func TestSealSurvivesAJSONRoundTrip(t *testing.T) {
	k, err := New("k1", map[string][]byte{"k1": key1})
	if err != nil {
		t.Fatal(err)
	}
	v := state{B: "x<y", A: 3, Extra: map[string]any{"n": 12, "s": struct {
		Z, Y int
	}{1, 2}}}
	s, err := k.Seal(v, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	var back state
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := k.Open(back, "", s); err != nil {
		t.Fatalf("a JSON round trip of the sealed value: %v", err)
	}
	back.A = 4
	if err := k.Open(back, "", s); !errors.Is(err, ErrEdited) {
		t.Fatalf("an edit: got %v, want ErrEdited", err)
	}
}

func TestKeysRotate(t *testing.T) {
	old, _ := New("k1", map[string][]byte{"k1": key1})
	s, err := old.Seal(state{A: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	both, err := New("k2", map[string][]byte{"k1": key1, "k2": key2})
	if err != nil {
		t.Fatal(err)
	}
	if err := both.Open(state{A: 1}, "", s); err != nil {
		t.Fatalf("a seal of an older key that is still held: %v", err)
	}
	other, _ := New("k1", map[string][]byte{"k1": key2})
	if err := other.Open(state{A: 1}, "", s); !errors.Is(err, ErrEdited) {
		t.Fatalf("another key under the same id: got %v, want ErrEdited", err)
	}
	onlyNew, _ := New("k2", map[string][]byte{"k2": key2})
	if err := onlyNew.Open(state{A: 1}, "", s); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("a key no longer held: got %v, want ErrUnknownKey", err)
	}
	for _, bad := range []string{"", "k1", "k1.!!", "k1." + s[3:len(s)-2]} {
		if err := both.Open(state{A: 1}, "", bad); err == nil {
			t.Errorf("seal %q opened", bad)
		}
	}
}

// TestNilKeys: a program that does not seal seals nothing, takes what is
// not sealed, and refuses what is.
func TestNilKeys(t *testing.T) {
	var none *Keys
	s, err := none.Seal(state{A: 1}, "")
	if err != nil || s != "" {
		t.Fatalf("Seal = %q, %v; want no seal", s, err)
	}
	if err := none.Open(state{A: 1}, "", ""); err != nil {
		t.Fatalf("an unsealed value: %v", err)
	}
	k, _ := New("k1", map[string][]byte{"k1": key1})
	sealed, _ := k.Seal(state{A: 1}, "")
	if err := none.Open(state{A: 1}, "", sealed); !errors.Is(err, ErrNoKeys) {
		t.Fatalf("a sealed value: got %v, want ErrNoKeys", err)
	}
}

func TestNewRefusesWeakKeys(t *testing.T) {
	for name, tc := range map[string]struct {
		current string
		keys    map[string][]byte
	}{
		"short key":       {"a", map[string][]byte{"a": []byte("secret")}},
		"current missing": {"b", map[string][]byte{"a": key1}},
		"dot in id":       {"a.b", map[string][]byte{"a.b": key1}},
		"empty id":        {"", map[string][]byte{"": key1}},
	} {
		if _, err := New(tc.current, tc.keys); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestOnce(t *testing.T) {
	a, b := new(state), new(state)
	undo, ok := Once(a)
	if !ok {
		t.Fatal("the first claim failed")
	}
	if _, ok := Once(a); ok {
		t.Fatal("a second claim of the same value succeeded")
	}
	if _, ok := Once(b); !ok {
		t.Fatal("another value's claim failed")
	}
	undo()
	if _, ok := Once(a); !ok {
		t.Fatal("a claim taken back could not be made again")
	}
}

// TestSealIsExact: numbers that read as one float64 but differ, and
// repeated member names in another order, seal differently; one number
// spelled otherwise seals the same.
func TestSealIsExact(t *testing.T) {
	k, err := New("k1", map[string][]byte{"k1": key1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`, false},
		{`{"n":0.1}`, `{"n":0.10000000000000001}`, false},
		{`{"a":1,"a":2}`, `{"a":2,"a":1}`, false},
		{`{"n":100,"m":1}`, `{"m":1.0,"n":1e2}`, true},
	} {
		s, err := k.Seal(json.RawMessage(tc.a), "")
		if err != nil {
			t.Fatal(err)
		}
		err = k.Open(json.RawMessage(tc.b), "", s)
		if tc.same && err != nil {
			t.Errorf("%s and %s: %v, want the same seal", tc.a, tc.b, err)
		}
		if !tc.same && !errors.Is(err, ErrEdited) {
			t.Errorf("%s and %s: %v, want ErrEdited", tc.a, tc.b, err)
		}
	}
}

// TestSealIsBoundToItsOwner: a seal opens only for the owner it was made
// for; no owner is an owner too.
func TestSealIsBoundToItsOwner(t *testing.T) {
	k, err := New("k1", map[string][]byte{"k1": key1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.Seal(state{A: 1}, "tenant-7/conv-42")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Open(state{A: 1}, "tenant-7/conv-42", s); err != nil {
		t.Fatalf("its owner: %v", err)
	}
	for _, other := range []string{"tenant-7/conv-43", "", "tenant-7"} {
		if err := k.Open(state{A: 1}, other, s); !errors.Is(err, ErrEdited) {
			t.Errorf("owner %q: got %v, want ErrEdited", other, err)
		}
	}
}
