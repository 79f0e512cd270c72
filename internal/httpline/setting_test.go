package httpline

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSetting(t *testing.T) {
	const env = "HTTPLINE_TEST_SETTING"
	t.Setenv(env, "")
	assert.Equal(t, "def", Setting("", env, "def"))
	assert.Equal(t, "def", Setting(" \n", env, "def"), "blanks are unset")
	assert.Equal(t, "", Setting("", env, ""))
	t.Setenv(env, " from-env\n")
	assert.Equal(t, "from-env", Setting("", env, "def"))
	assert.Equal(t, "cfg", Setting(" cfg ", env, "def"), "the Config wins")
	t.Setenv(env, "  ")
	assert.Equal(t, "def", Setting("", env, "def"))
}
