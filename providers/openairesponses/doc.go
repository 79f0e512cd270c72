// Package openairesponses is a [chat.Model] for OpenAI's Responses API
// (POST /v1/responses), which OpenAI's reasoning models use for their best
// tool calling, and which llama.cpp's llama-server and Ollama serve too.
package openairesponses
