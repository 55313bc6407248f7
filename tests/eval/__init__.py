"""Tests of addon/eval."""
