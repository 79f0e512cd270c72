// Package hook composes the hooks and middleware that observe and wrap the
// tool-calling loop: given more than once, each set runs, the first given
// outermost.
package hook

import "context"

// Context returns what a before-hook returned, or ctx when it returned
// nil.
func Context(ctx, from context.Context) context.Context {
	if from == nil {
		return ctx
	}
	return from
}

// Before returns a before-hook that runs a, then b with the context a
// returned; either may be nil.
func Before[T any](a, b func(context.Context, T) context.Context) func(context.Context, T) context.Context {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, v T) context.Context {
		ctx = Context(ctx, a(ctx, v))
		return Context(ctx, b(ctx, v))
	}
}

// After returns an after-hook that runs a, then b; either may be nil.
func After[T any](a, b func(context.Context, T)) func(context.Context, T) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, v T) { a(ctx, v); b(ctx, v) }
}

// AfterBoth is [After] for hooks of two values, such as a call's outcome
// and its error.
func AfterBoth[A, B any](a, b func(context.Context, A, B)) func(context.Context, A, B) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, x A, y B) { a(ctx, x, y); b(ctx, x, y) }
}

// Progress returns a progress hook that runs a, then b; either may be nil.
func Progress[I any](a, b func(ctx context.Context, info I, message string, progress, total float64)) func(ctx context.Context, info I, message string, progress, total float64) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(ctx context.Context, info I, message string, progress, total float64) {
		a(ctx, info, message, progress, total)
		b(ctx, info, message, progress, total)
	}
}

// Wrap returns middleware that runs outer around inner; either may be nil.
func Wrap[M ~func(ctx context.Context, call C, next func(context.Context) (string, error)) (string, error), C any](outer, inner M) M {
	switch {
	case outer == nil:
		return inner
	case inner == nil:
		return outer
	}
	return func(ctx context.Context, call C, next func(context.Context) (string, error)) (string, error) {
		return outer(ctx, call, func(ctx context.Context) (string, error) { return inner(ctx, call, next) })
	}
}
