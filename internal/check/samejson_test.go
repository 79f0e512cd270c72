package check

import "testing"

func TestSameJSON(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`{"to":"ana","amount":10}`, `{ "amount": 1e1, "to": "ana" }`, true},
		{`{"amount":10}`, `{"amount":10.0}`, true},
		{`{"amount":9007199254740993}`, `{"amount":9007199254740992}`, false},
		{`{"amount":10}`, `{"amount":10000}`, false},
		{`{"amount":10}`, `{"amount":"10"}`, false},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`{"a":1}`, `{"a":1} {"a":2}`, false},
		{`{"a":1}`, `{"a":1`, false},
	} {
		if got := SameJSON([]byte(tc.a), []byte(tc.b)); got != tc.same {
			t.Errorf("SameJSON(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}
