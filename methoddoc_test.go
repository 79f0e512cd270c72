package toolcall_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMethodDocNamesEveryTagKey fails for a tag key that the library reads
// on a Method field (the list its tag check accepts) or on a parameter
// field (the keys the schema walker reads) but that go doc toolcall.Method
// does not list as "- key: ...": a key missing there is one users cannot
// find.
func TestMethodDocNamesEveryTagKey(t *testing.T) {
	t.Parallel()
	methodDoc := typeDoc(t, ".", "Method")

	methodKeys := stringsOfVar(t, "internal/signature", "methodTagKeys")
	assert.Contains(t, methodKeys, "tool")
	paramKeys := caseStringsOfFunc(t, "internal/schema", "readTags")
	assert.Contains(t, paramKeys, "json")
	var missing []string
	for _, key := range append(methodKeys, paramKeys...) {
		if !regexp.MustCompile(`(?m)^\s*- ` + regexp.QuoteMeta(key) + `:`).MatchString(methodDoc) {
			missing = append(missing, key)
		}
	}
	assert.Empty(t, missing, "tag keys the library reads that go doc toolcall.Method does not list")
}

// parsePackage parses the non-test Go files of the package in dir.
func parsePackage(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	require.NotEmpty(t, files, dir)
	return files
}

// typeDoc returns the doc comment of the type name of the package in dir,
// as go doc shows it.
func typeDoc(t *testing.T, dir, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	p, err := doc.NewFromFiles(fset, parsePackage(t, fset, dir), "github.com/toolcall-go/toolcall")
	require.NoError(t, err)
	for _, ty := range p.Types {
		if ty.Name == name {
			return ty.Doc
		}
	}
	t.Fatalf("no type %s in %s", name, dir)
	return ""
}

// stringsOfVar returns the string literals of the package-level variable
// name in dir, a []string{...}.
func stringsOfVar(t *testing.T, dir, name string) []string {
	t.Helper()
	for _, f := range parsePackage(t, token.NewFileSet(), dir) {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if id.Name == name && i < len(vs.Values) {
						return stringLits(t, vs.Values[i])
					}
				}
			}
		}
	}
	t.Fatalf("no variable %s in %s", name, dir)
	return nil
}

// caseStringsOfFunc returns the string literals of the case clauses of the
// function name in dir.
func caseStringsOfFunc(t *testing.T, dir, name string) []string {
	t.Helper()
	for _, f := range parsePackage(t, token.NewFileSet(), dir) {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != name {
				continue
			}
			var keys []string
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if cc, ok := n.(*ast.CaseClause); ok {
					for _, e := range cc.List {
						keys = append(keys, stringLits(t, e)...)
					}
				}
				return true
			})
			require.NotEmpty(t, keys, "no case clause with a string in %s", name)
			return keys
		}
	}
	t.Fatalf("no function %s in %s", name, dir)
	return nil
}

// stringLits returns the string literals within e.
func stringLits(t *testing.T, e ast.Expr) []string {
	t.Helper()
	var out []string
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			out = append(out, s)
		}
		return true
	})
	return out
}
