"""The client's side of the network: the link to a server, a table's session and the model
it keeps, and the one server the client starts itself (``embedded``)."""
