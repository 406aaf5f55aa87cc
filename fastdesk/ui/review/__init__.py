"""The review on screen: the controller that wires a document's review to the window, and the
margin and bar that paint it."""
