package encode

import (
	"reflect"
	"sync"
	"unsafe"
)

// An Encoder encodes the values of one Go type, given by pointer, with the
// encoder compiled for the type: no interface to box the value in, and no
// lookup of the type per call.
type Encoder struct {
	t reflect.Type
	// enc reads the value in place; nil when the type is sensitive to
	// addressability (see addrSensitive), and the value is then copied
	// into an interface and left to String.
	enc addrEncoderFunc
}

var forCache sync.Map // reflect.Type -> *Encoder

// For returns the Encoder of values of type t.
func For(t reflect.Type) *Encoder {
	if e, ok := forCache.Load(t); ok {
		return e.(*Encoder)
	}
	e := &Encoder{t: t}
	if t.Kind() != reflect.Interface && !addrSensitive(t) {
		e.enc = addrEncoder(t)
	}
	got, _ := forCache.LoadOrStore(t, e)
	return got.(*Encoder)
}

// String returns the JSON of the value of e's type at p exactly as String
// does for the value itself: as a value in an interface, not addressable,
// which the addressed encoders reproduce for every type that is not
// sensitive to addressability. p must stay valid and unchanged during the
// call.
func (e *Encoder) String(p unsafe.Pointer) (string, error) {
	return e.StringWith(nil, p)
}

// A Scratch holds the buffers of encodes, for a caller that keeps one in
// storage of its own that no two goroutines use at once; the zero Scratch
// is ready.
type Scratch struct{ s state }

// StringWith is String with sc's buffers (nil: a pooled state's).
func (e *Encoder) StringWith(sc *Scratch, p unsafe.Pointer) (string, error) {
	if preReleaseV2 || e.enc == nil {
		return String(e.value(p))
	}
	var s *state
	if sc != nil {
		s = &sc.s
	} else {
		s = statePool.Get().(*state)
	}
	s.depth = 0
	b, err := e.enc(s, s.buf[:0], p)
	s.buf = b
	var out string
	if err == nil {
		out = string(b)
	}
	if sc != nil {
		s.reset()
	} else {
		s.release()
	}
	if err != nil {
		// As String: encoding/json decides.
		return reference(e.value(p))
	}
	return out, nil
}

// value returns a copy of the value at p in an interface.
func (e *Encoder) value(p unsafe.Pointer) any {
	return reflect.NewAt(e.t, p).Elem().Interface()
}

// Type returns the type of the values e encodes.
func (e *Encoder) Type() reflect.Type { return e.t }

// Compiled reports whether String and Encoder encode with the compiled
// encoders; with a pre-release of encoding/json/v2 they leave every value
// to encoding/json.
func Compiled() bool { return !preReleaseV2 }
