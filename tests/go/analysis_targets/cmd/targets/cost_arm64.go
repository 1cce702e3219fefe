// Keeps the asm functions of the uprobe cost classes alive: the tests read their first
// instruction; nothing calls them.
package main

// Functions led by one instruction of each uprobe cost class (asm_arm64.s). They are never
// called, only kept alive so that the linker keeps them.
func costBranch()
func costMov()
func costLdaxr()

var costSamples = []func(){costBranch, costMov, costLdaxr}
