"""Agents caesar can delegate to, starting with the built-in demo agent."""
