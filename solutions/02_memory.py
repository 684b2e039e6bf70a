# Reference solutions for notebooks/02_memory.ipynb. Try the exercises yourself first!

# %% exercise 02-1
def chat_turn(messages, user_text):
    """Append the user's message, send the whole list, append the reply, return the reply text."""
    messages.append({"role": "user", "content": user_text})
    response = client.chat.completions.create(model=MODEL, messages=messages, max_tokens=100)
    reply = response.choices[0].message.content
    messages.append({"role": "assistant", "content": reply})
    return reply


# %% exercise 02-2
def keep_last_turns(messages, n_turns):
    """Return the system message plus the last n_turns whole turns (a turn starts at a user message)."""
    system, rest = messages[:1], messages[1:]
    starts = [i for i, m in enumerate(rest) if m["role"] == "user"]
    if n_turns >= len(starts):
        return system + rest
    return system + rest[starts[-n_turns]:]
