package client

// InFlight is how many append requests c keeps out at once, for the tests.
func (c *Client) InFlight() int { return c.inFlight() }
