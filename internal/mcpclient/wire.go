package mcpclient

import "context"

// WireTap sees every whole message a Client sends and receives, in order
// (odek run --record). It must not block.
type WireTap interface {
	Sent(msg []byte)
	Received(msg []byte)
}

// Peer stands in for a server (odek run --replay): a Client given one
// starts no process and opens no connection, and exchanges its messages
// with the Peer instead. Recv blocks until a message is ready and returns
// an error once the Peer is closed.
type Peer interface {
	Send(ctx context.Context, msg []byte) error
	Recv() ([]byte, error)
	Close() error
}

// tapTransport records what passes through another transport.
type tapTransport struct {
	transport
	tap WireTap
}

func (t tapTransport) send(ctx context.Context, msg []byte, id int64) error {
	t.tap.Sent(msg)
	return t.transport.send(ctx, msg, id)
}

func (t tapTransport) recv() ([]byte, error) {
	msg, err := t.transport.recv()
	if err == nil {
		t.tap.Received(msg)
	}
	return msg, err
}

// peerTransport talks to a Peer.
type peerTransport struct{ p Peer }

func (t peerTransport) send(ctx context.Context, msg []byte, _ int64) error {
	return t.p.Send(ctx, msg)
}
func (t peerTransport) recv() ([]byte, error) { return t.p.Recv() }
func (t peerTransport) close(grace) error     { return t.p.Close() }
