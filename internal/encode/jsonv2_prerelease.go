//go:build goexperiment.jsonv2 && !go1.27

package encode

// Before Go 1.27, GOEXPERIMENT=jsonv2 gives a pre-release of encoding/json/v2
// whose rules (tag options, ...) are not those of the released one that
// jsonv2.go follows: String leaves every value to encoding/json.
func init() { preReleaseV2 = true }
