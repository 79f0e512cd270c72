package toolcall

// SetOnCheck lets tests count argument checks; nil turns counting off.
func SetOnCheck(f func(tool string)) { onCheck = f }
