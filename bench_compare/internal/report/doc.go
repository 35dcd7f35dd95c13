// Package report is bench_compare's output: the results of a run (Row, one
// per input measured side by side, and the provenance Env) as CSV and env
// files, which it also reads back, and as a Markdown table, SVG bar charts,
// a plain-text table for the terminal, the summary a README shows and the
// GEMM issue's targets report. Replot regenerates all but the CSV from a
// recorded CSV, without a GPU. The command measures; this package only
// writes and reads what it measured.
package report
