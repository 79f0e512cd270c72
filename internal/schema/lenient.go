package schema

import "github.com/toolcall-go/toolcall/internal/jsonnode"

// LenientOf returns the object schema tree, left as it is, with optional
// properties also accepting null: what a direct call accepts, so that a
// call checked against the strict variant passes again.
func LenientOf(tree *jsonnode.Object) *jsonnode.Object {
	return rewriteOptional(jsonnode.Clone(tree).(*jsonnode.Object), false)
}
