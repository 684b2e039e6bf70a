# Reference solutions for notebooks/00_setup.ipynb. Try the exercises yourself first!

# %% exercise 00-1
needs_key = ["deepseek", "dashscope", "openai"]

# %% exercise 00-2
env_text = """
COURSE_PROVIDER=deepseek
DEEPSEEK_API_KEY=sk-xxxx
"""
