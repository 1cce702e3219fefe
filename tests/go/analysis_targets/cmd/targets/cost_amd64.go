// Keeps the asm functions of the uprobe cost classes alive: the tests read their first
// instruction; nothing calls them.
package main

// Functions led by one instruction of each uprobe cost class (asm_amd64.s). They are never
// called, only kept alive so that the linker keeps them.
func costNop()
func costNopPrefixed()
func costPushRbp()
func costPushR12()
func costJmpRel8()
func costJmpRel32()
func costMov()
func costNopwCs()
func costLockAdd()
func costEndbr64()

var costSamples = []func(){costNop, costNopPrefixed, costPushRbp, costPushR12, costJmpRel8, costJmpRel32, costMov,
	costNopwCs, costLockAdd, costEndbr64}
