import os

from hypothesis import settings

# Property tests run exact arithmetic: keep example counts modest and deadlines off.
settings.register_profile("attnproof", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "attnproof"))
