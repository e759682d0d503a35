// Package disttest lists the methods that run on a distributed trace, each
// as a Case whose Run renders every table of the method's result cell by
// cell: the same cases run on a local trace and on a distributed one (the
// in-process double parttest.Distribute, and a real MPI job in package
// dist's tests) and must render identically.
package disttest
