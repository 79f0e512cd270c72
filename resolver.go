package toolcall

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/toolcall-go/toolcall/chat"

	"github.com/toolcall-go/toolcall/internal/check"
	"github.com/toolcall-go/toolcall/internal/tooldefs"
)

// A Registry holds tools by name, for prompts that name the tools they
// offer ([Prompt.ToolNames], [WithRegistry]). The zero value is an empty registry ready
// to use; a Registry is safe for concurrent use and must not be copied
// after first use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// Register adds tools: [Tool] values, []Tool slices, or objects with
// [Method] fields. A name already registered, or given twice, is a
// [*DefinitionError] wrapping [ErrInvalidTool] that names both tools'
// sources, and nothing is added.
func (r *Registry) Register(tools ...any) error {
	ts, err := collectTools(tools)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = map[string]Tool{}
	}
	given := make(map[string]Tool, len(ts))
	for _, t := range ts {
		name := t.Definition().Name
		if prev, dup := r.tools[name]; dup {
			return &DefinitionError{Method: name,
				Err: fmt.Errorf("%w: %q is registered by %s and given again by %s", errDuplicateTool, name, toolSource(prev), toolSource(t))}
		}
		if u, dup := given[name]; dup {
			return &DefinitionError{Method: name,
				Err: fmt.Errorf("%w: %q is given by %s and %s", errDuplicateTool, name, toolSource(u), toolSource(t))}
		}
		given[name] = t
	}
	maps.Copy(r.tools, given)
	return nil
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// A Toolset offers tools chosen per request, for example from what the
// conversation is about, or the current tools of a remote server. Its
// Tools method is called before each model request and must be safe for
// concurrent use.
type Toolset interface {
	Tools(ctx context.Context, req *chat.Request) ([]Tool, error)
}

// collectTools turns Tool values and objects with Method fields into tools.
func collectTools(items []any) ([]Tool, error) {
	var out []Tool
	for _, it := range items {
		switch v := it.(type) {
		case Tool:
			if v == nil {
				return nil, fmt.Errorf("%w: nil tool", ErrInvalidTool)
			}
			out = append(out, v)
		case []Tool:
			out = append(out, v...)
		default:
			ts, err := toolsFrom(it)
			if err != nil {
				return nil, err
			}
			out = append(out, ts...)
		}
	}
	return out, nil
}

// find returns the tool called name: the first offered with that name.
func (s *toolSet) find(name string) Tool {
	t, _ := s.lookup(name)
	return t
}

// lookup returns the tool called name and, in a prepared set, its
// compiled input schema.
func (s *toolSet) lookup(name string) (Tool, *check.Input) {
	if s.prepared {
		if i := s.defs.Find(name); i >= 0 {
			return s.first[i], s.input(i)
		}
		return nil, nil
	}
	for _, t := range s.tools {
		if toolName(t) == name {
			return t, nil
		}
	}
	return nil, nil
}

// toolName returns t's name; a tool this package built gives it without
// a copy of its definition.
func toolName(t Tool) string {
	if bt, ok := t.(builtTool); ok {
		return bt.core().def.Name
	}
	return t.Definition().Name
}

// unknownTool is the error of a call to a tool that was not offered; its
// message, for the model, lists the tools that were.
type unknownTool struct {
	name  string
	tools []Tool
}

func (unknownTool) Is(target error) bool { return target == ErrToolNotFound }

func (u unknownTool) Error() string {
	names := make([]string, len(u.tools))
	for i, t := range u.tools {
		names[i] = t.Definition().Name
	}
	return tooldefs.Unknown(u.name, names)
}
