package seal

import (
	"runtime"
	"sync"
	"weak"
)

// claimed holds the values claimed with Once, by address; an entry goes
// when its value is collected.
var claimed sync.Map // weak.Pointer[T] -> struct{}

// Once claims the value p points to for this process, and reports false
// when it was claimed before; undo takes the claim back.
func Once[T any](p *T) (undo func(), ok bool) {
	wp := weak.Make(p)
	if _, loaded := claimed.LoadOrStore(wp, struct{}{}); loaded {
		return nil, false
	}
	runtime.AddCleanup(p, func(wp weak.Pointer[T]) { claimed.Delete(wp) }, wp)
	return func() { claimed.Delete(wp) }, true
}
