// Package anthropic is a [chat.Model] for Anthropic's Messages API
// (POST /v1/messages) and the servers that speak it, such as Ollama and
// llama.cpp's llama-server.
package anthropic
