package report

// IntPair writes two counts as "a / b": claude's and the person's.
func IntPair(a, b int) string { return Int(int64(a)) + " / " + Int(int64(b)) }

// ErrorsHeader heads the column of the calls that ended in a server error,
// claude's and the person's, shown when any row has one.
const ErrorsHeader = "Errors claude / human"
