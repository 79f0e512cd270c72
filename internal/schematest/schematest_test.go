package schematest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCasesMatchFiles makes sure every golden file has one case and every
// case a file, so both test packages check them all.
func TestCasesMatchFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/schema/*.json")
	if err != nil {
		t.Fatal(err)
	}
	onDisk := map[string]bool{}
	for _, f := range files {
		onDisk[strings.TrimSuffix(filepath.Base(f), ".json")] = true
	}
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Errorf("two cases are named %q", c.Name)
		}
		seen[c.Name] = true
		if !onDisk[c.Name] {
			t.Errorf("case %q has no golden file", c.Name)
		}
	}
	for name := range onDisk {
		if !seen[name] {
			t.Errorf("testdata/schema/%s.json has no case", name)
		}
	}
}
