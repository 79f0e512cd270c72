// Package check checks the arguments a model sends to a tool against the
// tool's JSON Schema, and decodes them into the tool's Go type in the same
// pass.
//
// The checker fails closed: every keyword of a schema is either enforced,
// a known annotation, or refused by Compile. A keyword it silently ignored
// would let through arguments the schema's author meant to forbid.
//
// Patterns are compiled with Go's regexp (RE2) rather than an ECMA-262
// engine, and patterns RE2 cannot express (lookaround, backreferences) are
// refused. RE2 matches in time linear in the input, so a schema received
// from a remote server cannot make the checker backtrack catastrophically.
//
// Numbers are compared as exact decimals, never through float64, so a
// bound such as 9007199254740992 is enforced against every literal a model
// can write.
package check
