"""The Textual app behind ``caesar watch``. It imports caesar_core; caesar_core never imports it."""
