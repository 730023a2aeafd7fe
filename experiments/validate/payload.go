package validate

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/bounded"
	"github.com/notesbench/notesbench/internal/plural"
)

// CheckPayloadFile reads the payload in file ("-": stdin) and checks it
// against tool's schema (CheckPayload), refusing one larger than a tool
// call may carry (contract.MaxArgsBytes) before reading it whole. Every
// error names the file, and is the caller's bad input; but when ctx ends
// first it is ctx's error.
func CheckPayloadFile(ctx context.Context, stdin io.Reader, tool, file string) (PayloadResult, error) {
	data, err := bounded.Read(ctx, stdin, file, contract.MaxArgsBytes)
	var large *bounded.TooLargeError
	switch {
	case errors.As(err, &large) && large.Size > 0:
		return PayloadResult{}, fmt.Errorf("%s: the payload is %s bytes, more than the %s a tool call may carry (MCP servers cap a message at 4 MiB)",
			file, plural.Int(large.Size), plural.Int(contract.MaxArgsBytes))
	case errors.As(err, &large):
		return PayloadResult{}, fmt.Errorf("%s: the payload is more than the %s bytes a tool call may carry (MCP servers cap a message at 4 MiB)",
			file, plural.Int(contract.MaxArgsBytes))
	case err != nil && ctx.Err() == nil:
		return PayloadResult{}, fmt.Errorf("reading payload: %w", err)
	case err != nil:
		return PayloadResult{}, err
	}
	res, err := CheckPayload(tool, data)
	if err != nil {
		return PayloadResult{}, fmt.Errorf("%s: %w", file, err)
	}
	return res, nil
}

// PayloadRecord is validate's JSON result for a payload of the user's: a
// row per violation, in the envelope every notesbench result shares
// (results.Report).
type PayloadRecord struct {
	Experiment string               `json:"experiment"`
	Config     PayloadConfig        `json:"config"`
	Rows       []contract.Violation `json:"rows"`
	Valid      bool                 `json:"valid"`
	Full       string               `json:"full"`
	Minimal    string               `json:"minimal"`
	Warnings   []string             `json:"warnings"`
	Version    string               `json:"notesbench_version"`
}

// PayloadConfig is what a payload was checked against.
type PayloadConfig struct {
	Tool string `json:"tool"`
	File string `json:"file"`
}

// Record returns the JSON result of r, the verdict on the payload in file,
// made by notesbench version.
func (r PayloadResult) Record(file, version string) PayloadRecord {
	return PayloadRecord{Experiment: "validate", Config: PayloadConfig{Tool: r.Tool, File: file},
		Rows: r.Violations, Valid: r.Valid, Full: r.Full, Minimal: r.Minimal, Warnings: []string{}, Version: version}
}
