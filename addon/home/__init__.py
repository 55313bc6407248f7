"""The home: its live model, target matching, context selection and actions, one way up."""
