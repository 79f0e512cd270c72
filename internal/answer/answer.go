// Package answer holds what a typed answer is asked for and repaired with,
// the same in the loop and in the durable workflow: how the mode is
// chosen, the answer tool's name, description and result, and the texts
// a refused answer goes back to the model with.
package answer

import (
	"fmt"
	"strings"

	"github.com/toolcall-go/toolcall/chat"
)

// The answer tool of the tool mode: the model gives the answer as its
// arguments, and giving it runs nothing.
const (
	Tool        = "final_answer"
	Description = "Give the final answer. Call it once the answer is known, with the answer as its arguments."
	Received    = "answer received" // its result, for the model
)

// FormatName names the schema sent in the native mode.
const FormatName = "answer"

// DefaultRepairs is how many times a model is asked again for an answer
// that broke its schema, when the caller sets no bound.
const DefaultRepairs = 2

// A reply in plain text, where the answer must be given through [Tool],
// breaks this rule, with this message.
const (
	NotAnsweredRule = "tool"
	NotAnswered     = "the final answer must be given by calling the tool " + Tool + ", not as text"
)

// Mode chooses how an answer is asked of model: mode as given, or, when
// it is zero, natively where model is a [chat.StructuredModel] that
// supports it and through [Tool] elsewhere. The error is for the caller
// to prefix with the name of its setting.
func Mode(model chat.Model, mode chat.OutputMode) (chat.OutputMode, error) {
	sm, native := model.(chat.StructuredModel)
	native = native && sm.StructuredOutput()
	switch mode {
	case "":
		if native {
			return chat.OutputNative, nil
		}
		return chat.OutputTool, nil
	case chat.OutputNative:
		if !native {
			return "", fmt.Errorf("the model (%T) cannot ask for an answer in a schema natively; use chat.OutputTool", model)
		}
	case chat.OutputTool:
	default:
		return "", fmt.Errorf("unknown mode %q; the modes are chat.OutputNative and chat.OutputTool", mode)
	}
	return mode, nil
}

// Repair is what the model is told of a native answer that broke its
// schema: the violations, as the model reads them for tool arguments.
func Repair[V fmt.Stringer](violations []V) string {
	var b strings.Builder
	b.WriteString("Your answer does not follow the schema: ")
	for i, v := range violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	b.WriteString(". Answer again, with only the JSON.")
	return b.String()
}
