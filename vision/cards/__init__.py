"""Playing cards seen by the camera: a renderer of discard piles in many card styles
(:mod:`vision.cards.styles`, :mod:`vision.cards.scene`) and a reader of the new top card
(:mod:`vision.cards.reader`). docs/cards.md describes the card world and its held-out
families."""
