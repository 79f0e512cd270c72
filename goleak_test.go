package toolcall_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryPackageChecksLeaks fails, listing them, for the packages of the
// module that have tests but no TestMain calling goleak.VerifyTestMain: a
// goroutine a test leaves running goes unnoticed there.
func TestEveryPackageChecksLeaks(t *testing.T) {
	t.Parallel()
	var missing []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != "." {
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
		}
		tests, err := filepath.Glob(filepath.Join(path, "*_test.go"))
		if err != nil || len(tests) == 0 {
			return err
		}
		ok, err := verifiesLeaks(tests)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, path)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, missing, "packages with tests but no TestMain calling goleak.VerifyTestMain")
}

// verifiesLeaks reports whether one of the test files declares a TestMain
// that calls goleak.VerifyTestMain.
func verifiesLeaks(files []string) (bool, error) {
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return false, err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Name.Name != "TestMain" || fn.Body == nil {
				continue
			}
			found := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "VerifyTestMain" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "goleak" {
						found = true
					}
				}
				return !found
			})
			if found {
				return true, nil
			}
		}
	}
	return false, nil
}
