package results

import "fmt"

// FormatRatio writes a ratio as every table shows it: three significant
// digits and "×" ("0.5×", "1.53×", "42.7×"), whole numbers from 100 on
// ("251×").
func FormatRatio(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.3g×", x)
}
