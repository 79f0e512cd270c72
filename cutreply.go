package toolcall

import (
	"fmt"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/toolcalls"
)

// replyCut returns an error wrapping [ErrReplyCut] when mr has tool calls
// and was cut short, and nil otherwise.
func replyCut(mr *chat.Response) error {
	if why := toolcalls.Cut(mr); why != "" {
		return fmt.Errorf("%w: %s", ErrReplyCut, why)
	}
	return nil
}
