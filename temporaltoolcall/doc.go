// Package temporaltoolcall runs toolcall's tool-calling loop as a Temporal
// workflow, so that a conversation survives a crashed worker and its calls
// spread over many machines.
package temporaltoolcall
