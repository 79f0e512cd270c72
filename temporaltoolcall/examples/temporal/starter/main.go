// Command starter starts a conversation of the temporal example, approves
// the call that waits for approval, and prints the answer.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"github.com/toolcall-go/toolcall"
	"github.com/toolcall-go/toolcall/chat"
	"github.com/toolcall-go/toolcall/temporaltoolcall"
	"go.temporal.io/sdk/client"
)

func main() {
	hostport := flag.String("hostport", "127.0.0.1:7233", "the Temporal frontend")
	namespace := flag.String("namespace", "default", "the Temporal namespace")
	flag.Parse()

	c, err := client.Dial(client.Options{HostPort: *hostport, Namespace: *namespace})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	id := fmt.Sprintf("dinner-%d", time.Now().UnixNano())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: "toolcall-example"},
		temporaltoolcall.WorkflowName, temporaltoolcall.Input{
			Messages: []chat.Message{chat.UserMessage("Book dinner in Paris if the weather is fine.")},
			Key:      "tenant-7",
		})
	if err != nil {
		log.Fatal(err)
	}

	// Wait for the booking to ask for approval, then approve it.
	for {
		pending, err := temporaltoolcall.Pending(ctx, c, id, "")
		if err != nil {
			log.Fatal(err)
		}
		if len(pending) > 0 {
			fmt.Printf("waiting: %s %s (%s)\n", pending[0].Name, pending[0].Arguments, pending[0].Reason)
			err := temporaltoolcall.Decide(ctx, c, id, "", map[string]toolcall.Decision{pending[0].ID: {Allow: true}})
			if err != nil {
				log.Fatal(err)
			}
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := temporaltoolcall.Result(ctx, run)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Content())
}
