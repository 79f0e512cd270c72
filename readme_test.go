package toolcall_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMENamesMatchGoDoc fails when the table of README.md's "Names at a
// glance" section and the root package's exported top-level identifiers
// differ: a name added to the package and not to the table, or a name in
// the table that the package does not export (renamed, removed or
// misspelled).
func TestREADMENamesMatchGoDoc(t *testing.T) {
	t.Parallel()
	exported := exportedTopLevel(t)
	require.NotEmpty(t, exported)

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	listed := readmeGlanceNames(t, string(readme))

	var missing, extra []string
	for name := range exported {
		if !listed[name] {
			missing = append(missing, name)
		}
	}
	for name := range listed {
		if !exported[name] {
			extra = append(extra, name)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	assert.Empty(t, missing, "README.md's \"Names at a glance\" table lacks names the package exports")
	assert.Empty(t, extra, "README.md's \"Names at a glance\" table lists names the package does not export")
}

// exportedTopLevel returns the exported top-level identifiers (types,
// funcs, consts and vars; not methods or fields) declared in the root
// package's non-test Go files.
func exportedTopLevel(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}

var backticked = regexp.MustCompile("`([^`]*)`")

// readmeGlanceNames returns every backticked span in the table of the
// README's "## Names at a glance" section: the rows between the heading and
// the next "## " heading that start with "|".
func readmeGlanceNames(t *testing.T, readme string) map[string]bool {
	t.Helper()
	const heading = "## Names at a glance"
	_, section, found := strings.Cut(readme, "\n"+heading+"\n")
	require.True(t, found, "README.md has no %q section", heading)
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	names := map[string]bool{}
	rows := 0
	for line := range strings.SplitSeq(section, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		rows++
		for _, m := range backticked.FindAllStringSubmatch(line, -1) {
			names[m[1]] = true
		}
	}
	require.Greater(t, rows, 2, "the %q section has no table", heading)
	return names
}
