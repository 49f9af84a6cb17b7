"""The provider layer: message and model types, the built-in catalogue, abort signals and
one ``stream()`` that dispatches a request to the provider implementing the model's api.
"""
