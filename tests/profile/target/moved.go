//go:build gatemoved

package main

import (
	"encoding/json"
	"os"
)

// The code-diff test's moved head: an init that pulls in encoding/json, linked before package main,
// so that every function of main moves while its code stays the same (the demo's layout shift).
func init() {
	if os.Getenv("GATE_PROFILETARGET_JSON") != "" {
		_ = json.NewEncoder(os.Stdout).Encode(map[string]int{"units": burn30Units})
	}
}
