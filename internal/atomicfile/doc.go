// Package atomicfile writes a file so that readers see either its old content or
// the complete new one, never a part: results, baselines and reports written by
// notesbench go through it; a folder of files (a reproduction's, an audit's) is
// written whole or not at all (WriteFolder).
//
// It knows files and directories only: nothing of experiments, formats or what
// the bytes mean.
package atomicfile
