package toolcall_test

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExportedIdentifiersAreDocumented parses every non-test Go file of
// every package in the module and fails, listing them all, if an exported
// identifier has no doc comment: types, funcs, methods of exported types,
// consts and vars. A const or var inside a parenthesised group is covered
// by the group's doc comment or by its own line comment, since go doc shows
// the group as written. Struct fields and interface methods may go without
// one. Methods such as Error and Unwrap are not exempt: a one-line comment
// says what the error reads like or wraps.
func TestExportedIdentifiersAreDocumented(t *testing.T) {
	t.Parallel()
	var missing []undocumentedIdent
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "." {
				return nil
			}
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		missing = append(missing, undocumented(fset, f)...)
		return nil
	})
	require.NoError(t, err)
	if len(missing) == 0 {
		return
	}
	slices.SortFunc(missing, func(a, b undocumentedIdent) int {
		return cmp.Or(strings.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Line, b.pos.Line))
	})
	var b strings.Builder
	for _, m := range missing {
		fmt.Fprintf(&b, "\n\t%s:%d: %s %s", m.pos.Filename, m.pos.Line, m.kind, m.name)
	}
	t.Errorf("%d exported identifiers have no doc comment:%s", len(missing), b.String())
}

type undocumentedIdent struct {
	pos        token.Position
	kind, name string
}

// undocumented returns the exported identifiers of f that lack a doc
// comment.
func undocumented(fset *token.FileSet, f *ast.File) []undocumentedIdent {
	var out []undocumentedIdent
	report := func(pos token.Pos, kind, name string) {
		out = append(out, undocumentedIdent{pos: fset.Position(pos), kind: kind, name: name})
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Doc != nil {
				continue
			}
			if d.Recv == nil {
				report(d.Pos(), "func", d.Name.Name)
				continue
			}
			if recv := receiverType(d.Recv.List[0].Type); ast.IsExported(recv) {
				report(d.Pos(), "method", recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			grouped := d.Lparen.IsValid()
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					// A lone type takes the declaration's comment; in a
					// group each type needs its own.
					if s.Name.IsExported() && s.Doc == nil && (grouped || d.Doc == nil) {
						report(s.Pos(), "type", s.Name.Name)
					}
				case *ast.ValueSpec:
					// In a group, a trailing line comment documents a
					// value too: go doc shows the group as written.
					if s.Doc != nil || d.Doc != nil || grouped && s.Comment != nil {
						continue
					}
					for _, n := range s.Names {
						if n.IsExported() {
							report(n.Pos(), d.Tok.String(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// receiverType returns the name of a method's receiver type, without
// pointer and type parameters.
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func TestUndocumented(t *testing.T) {
	t.Parallel()
	const src = `package p

// Documented is documented.
type Documented int

type Bare int

// String is documented.
func (Documented) String() string { return "" }

func (Documented) Error() string { return "" }

func (*Bare) Unwrap() error { return nil }

func (unexported) Skipped() {}

func Func() {}

// Grouped values share the group's comment.
const (
	A = 1
	B = 2
)

const (
	C = 3 // a line comment documents a grouped value
	D = 4
)

var E = 5

// F is documented.
var F = 6

type (
	// G is documented.
	G int
	H int
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	require.NoError(t, err)
	var got []string
	for _, m := range undocumented(fset, f) {
		got = append(got, m.kind+" "+m.name)
	}
	want := []string{"type Bare", "method Documented.Error", "method Bare.Unwrap", "func Func", "const D", "var E", "type H"}
	assert.Equal(t, want, got)
}

// TestSecurityGuaranteesNameRealTests fails when SECURITY.md names a test or
// fuzz target that no test file of the module declares.
func TestSecurityGuaranteesNameRealTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("SECURITY.md")
	require.NoError(t, err)
	declared := map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			if name, ok := strings.CutPrefix(line, "func "); ok {
				if i := strings.IndexByte(name, '('); i > 0 {
					declared[name[:i]] = true
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	named := 0
	for _, field := range strings.FieldsFunc(string(doc), func(r rune) bool {
		return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		if strings.HasPrefix(field, "Test") && len(field) > 4 || strings.HasPrefix(field, "Fuzz") && len(field) > 4 {
			named++
			assert.True(t, declared[field], "SECURITY.md names %s, which no test file declares", field)
		}
	}
	assert.Greater(t, named, 10)

	// The table of trust boundaries has a row for each, naming at least one
	// test, each declared in the package the row says.
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 || strings.HasPrefix(strings.TrimSpace(cells[1]), "Boundary") || strings.HasPrefix(cells[1], "---") {
			continue
		}
		boundary := strings.TrimSpace(cells[1])
		rows[boundary] = true
		dir, tests := ".", 0
		for _, item := range strings.Split(cells[4], ",") {
			item = strings.TrimSpace(item)
			if pkg, name, ok := strings.Cut(item, ": "); ok {
				dir, item = pkg, name
				if _, err := os.Stat(dir); err != nil {
					dir = filepath.Join("providers", pkg)
				}
			}
			tests++
			assert.True(t, declaredIn(t, dir, item), "SECURITY.md: %q names %s, which %s does not declare", boundary, item, dir)
		}
		assert.Positive(t, tests, "SECURITY.md: %q names no test", boundary)
	}
	for _, want := range []string{"The model's output", "Stored paused state", "Session state", "MCP servers over stdio", "MCP servers over HTTP", "Provider replies", "Middleware, approvers and hooks"} {
		found := false
		for r := range rows {
			found = found || strings.HasPrefix(r, want)
		}
		assert.True(t, found, "SECURITY.md's table of trust boundaries lacks %q", want)
	}
}

// declaredIn reports whether a test file in dir declares func name.
func declaredIn(t *testing.T, dir, name string) bool {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		if strings.Contains(string(src), "\nfunc "+name+"(") {
			return true
		}
	}
	return false
}

// apiBudget bounds the root package's exported top-level identifiers
// (consts, vars, types and funcs, each name counted). The v1 API must fit
// in 90; the names beyond today's count are kept for features still to
// come, and each one spent should be argued for.
const apiBudget = 90

// TestExportedIdentifierBudget counts the root package's exported
// top-level identifiers from the source and fails above apiBudget.
func TestExportedIdentifierBudget(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var names []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	assert.LessOrEqual(t, len(names), apiBudget, "the root package exports %d top-level identifiers: %s", len(names), strings.Join(slices.Sorted(slices.Values(names)), " "))
}
