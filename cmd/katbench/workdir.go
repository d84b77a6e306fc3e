package main

import "github.com/nordisk/katbench/internal/workspace"

// workDir is the run's catalog directory (workspace.WorkDir).
func workDir(dir string) (string, bool, error) { return workspace.WorkDir(dir) }
