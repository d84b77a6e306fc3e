package main

import "github.com/nordisk/katbench/internal/workspace"

// workDir is the run's catalog directory (workspace.WorkDir).
func workDir(dir string) (string, bool, error) { return workspace.WorkDir(dir) }

// removeTree removes a temp dir reporting progress (workspace.RemoveTree).
func removeTree(dir string, report func(what string, done, total int)) error {
	return workspace.RemoveTree(dir, report)
}
