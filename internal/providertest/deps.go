package providertest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckImportsNeither checks that a program importing only package
// toolcall compiles neither the provider package pkg (its path below the
// module, "providers/gemini") nor its official SDK (a part of the SDK's
// module path), and that pkg's own build needs only the standard library
// and the module's packages.
func CheckImportsNeither(t *testing.T, pkg, sdk string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	require.NoError(t, err)
	deps := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", pkg).Output()
		require.NoError(t, err, "go list -deps %s", pkg)
		return strings.Fields(string(out))
	}
	const module = "github.com/toolcall-go/toolcall"
	for _, d := range deps(module) {
		assert.NotContains(t, d, pkg)
		assert.NotContains(t, d, sdk)
	}
	for _, d := range deps(module + "/" + pkg) {
		first, _, _ := strings.Cut(d, "/")
		if strings.Contains(first, ".") && !strings.HasPrefix(d, module) {
			t.Errorf("%s depends on %s", pkg, d)
		}
	}
}

// Canonical returns JSON b with its objects' keys sorted and no spaces, so
// that two encodings of one value compare equal.
func Canonical(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}
