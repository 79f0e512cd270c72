package toolcall_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInternalPackagesAreShared holds internal/README.md to the module: it
// lists every internal package, and each is imported by more than one
// package of the module (the root's tests count for the test helpers),
// so that no helper of the root alone hides in a package of its own.
func TestInternalPackagesAreShared(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("internal", "README.md"))
	require.NoError(t, err)
	entries, err := os.ReadDir("internal")
	require.NoError(t, err)
	importers := map[string]map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		for _, line := range strings.Split(string(src), "\n") {
			_, rest, ok := strings.Cut(line, `"github.com/toolcall-go/toolcall/internal/`)
			if !ok {
				continue
			}
			pkg, _, _ := strings.Cut(rest, `"`)
			pkg, _, _ = strings.Cut(pkg, "/")
			if dir == filepath.Join("internal", pkg) {
				continue
			}
			if importers[pkg] == nil {
				importers[pkg] = map[string]bool{}
			}
			importers[pkg][dir] = true
		}
		return nil
	})
	require.NoError(t, err)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		assert.Contains(t, string(readme), "| `"+e.Name()+"` |", "internal/README.md lists internal/%s", e.Name())
		assert.Greater(t, len(importers[e.Name()]), 1, "internal/%s is imported by %v only: fold it into its one importer", e.Name(), importers[e.Name()])
	}
}
