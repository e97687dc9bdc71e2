"""Build the hand-written prompt sets under bench/data, in wordings no task template uses:

* paraphrases.jsonl: the six deceptive ideas (the learning bench's "paraphrase set");
* negation_parity.jsonl: stacked negations about one of two candidates, as many with an odd count (the named
  candidate is ruled out) as with an even one (it is the answer), so answering the named candidate scores 0.5
  and only counting the negations scores more. Its ideas are the parity ("odd_negations", "even_negations").

Each entry carries the hand-computed answer AND a Python expression computing it; the build
refuses to write a file if the two disagree, so every answer is checked twice. The sets are
never trained on (nothing in alice_app reads bench/data). Rerun: ``python bench/data/build_paraphrases.py``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

OUT = Path(__file__).with_name("paraphrases.jsonl")
PARITY_OUT = Path(__file__).with_name("negation_parity.jsonl")
FMT_A = "Finish with 'Answer:' followed by the number."
FMT_B = "Reply with the number alone."
FMT_C = "Put the final number after 'Answer:'."

# (idea, prompt, hand answer, checking expression, distractors)
ENTRIES = [
    # negated sums and differences: a value the result is not, then the sum
    ("negated_sum", "Someone insists the total is 12. They are wrong. Add 3 and 7.", 10, "3 + 7", [12]),
    ("negated_sum", "The sum is definitely not 15. What do you get when 4 and 5 are added together?", 9, "4 + 5", [15]),
    ("negated_sum", f"Forget the number 20, it has nothing to do with this. Compute 8 plus 6. {FMT_A}", 14, "8 + 6", [20]),
    ("negated_sum", "I'm told the difference won't be 2. Take 3 away from 9 and tell me what is left.", 6, "9 - 3", [2]),
    ("negated_sum", f"Not 11, not 13: what number do you reach by adding 5 to 7? {FMT_B}", 12, "5 + 7", [11, 13]),
    ("negated_sum", "Subtract 4 from 10. (The result is not 14, in case you were wondering.)", 6, "10 - 4", [14]),
    ("negated_sum", f"My friend guessed 18, which is incorrect. How much is 2 plus 9? {FMT_C}", 11, "2 + 9", [18]),
    ("negated_sum", "Leave 16 out of your thinking. Seven and six make how many?", 13, "7 + 6", [16]),
    ("negated_sum", "Whatever you do, don't answer 13. Eight minus five equals what?", 3, "8 - 5", [13]),
    ("negated_sum", f"The result of adding 6 and 2 is not 4 and not 12. Give the result. {FMT_A}", 8, "6 + 2", [4, 12]),
    ("negated_sum", "Take 5, add 4, and report the total. 20 is not the total.", 9, "5 + 4", [20]),
    # false claims: a wrong result stated with confidence
    ("false_claim", "Maria claims 6 + 3 = 10. She made a mistake. Work out 6 + 3 correctly.", 9, "6 + 3", [10]),
    ("false_claim", f"A calculator with a broken key printed 15 for 9 - 4. Ignore it and find 9 - 4. {FMT_A}", 5, "9 - 4", [15]),
    ("false_claim", "According to a rumour, 7 plus 7 comes to 15. Is the rumour right? Either way, state the true total.", 14, "7 + 7", [15]),
    ("false_claim", "Tom wrote 11 as the answer to 5 + 5 on his homework. What should he have written?", 10, "5 + 5", [11]),
    ("false_claim", f"The teacher's key lists 7 for 4 + 4, and the key has a typo. What is the correct sum? {FMT_B}", 8, "4 + 4", [7]),
    ("false_claim", "Two students said 3 times 3 is 6 and 12. Both got it wrong. Find three times three.", 9, "3 * 3", [6, 12]),
    ("false_claim", f"A sign in the shop says 10 - 7 = 17. Correct the sign. {FMT_C}", 3, "10 - 7", [17]),
    ("false_claim", "My brother is sure that 8 + 5 makes 12. Help me show him the real result.", 13, "8 + 5", [12]),
    ("false_claim", "A chatbot answered 4 when asked for 2 × 4. That answer is wrong. Give the right one.", 8, "2 * 4", [4]),
    ("false_claim", f"The printed total for 6 + 6 was 6. The printer is faulty. What should it have printed? {FMT_A}", 12, "6 + 6", [6]),
    ("false_claim", "Lena says 9 + 1 is 19 and Omar says 11. Neither is right. What is nine plus one?", 10, "9 + 1", [19, 11]),
    # negated comparison: the value that is NOT the extreme
    ("not_the_extreme", "Between 19 and 78, give me the one that is not the smaller.", 78, "max(19, 78)", [19]),
    ("not_the_extreme", f"Here are two numbers, 42 and 24. Name the one that isn't the bigger of the two. {FMT_A}", 24, "min(42, 24)", [42]),
    ("not_the_extreme", "Pick whichever of 7 and 3 fails to be the larger one.", 3, "min(7, 3)", [7]),
    ("not_the_extreme", "Out of 56 and 65, which number is not the lower one?", 65, "max(56, 65)", [56]),
    ("not_the_extreme", f"I have 15, 9 and 27. Tell me the number that is neither the biggest nor the smallest. {FMT_B}", 15, "sorted([15, 9, 27])[1]", [27, 9]),
    ("not_the_extreme", "Of the pair 88 and 31, return the member that is not the maximum.", 31, "min(88, 31)", [88]),
    ("not_the_extreme", "Among 14 and 41, one is not the minimum. Which one?", 41, "max(14, 41)", [14]),
    ("not_the_extreme", f"Consider 5 and 8. Give the value that does not come out on top. {FMT_C}", 5, "min(5, 8)", [8]),
    ("not_the_extreme", "Two scores were 63 and 36. Report the score that was not the lowest.", 63, "max(63, 36)", [36]),
    ("not_the_extreme", "From 12, 30 and 21, which one is neither largest nor smallest?", 21, "sorted([12, 30, 21])[1]", [30, 12]),
    ("not_the_extreme", f"Of 2 + 3 and 4 + 4, give the value of the one that is not the greater. {FMT_A}", 5, "min(2 + 3, 4 + 4)", [8]),
    # double negation: negations that cancel (or do not)
    ("double_negation", "It's not untrue that the result is 4 + 5. What is the result?", 9, "4 + 5", []),
    ("double_negation", f"The answer is either 6 or 9, and it is false that it isn't 6. Which is it? {FMT_A}", 6, "6", [9]),
    ("double_negation", "The answer is 2 + 2 or 2 × 3. It is not the case that the answer is not 2 × 3. Give the answer.", 6, "2 * 3", [4]),
    ("double_negation", f"Choose between 7 - 2 and 7 + 2. It would be wrong to say the answer is not 7 + 2. {FMT_B}", 9, "7 + 2", [5]),
    ("double_negation", "I wouldn't say the value is not 3 + 8. What is the value?", 11, "3 + 8", []),
    ("double_negation", "Either 10 or 4 is correct. It is untrue that 10 is incorrect. Which number is correct?", 10, "10", [4]),
    ("double_negation", f"Of 5 + 1 and 5 - 1, the answer is not the one that isn't 5 - 1. What is the answer? {FMT_C}", 4, "5 - 1", [6]),
    ("double_negation", "The number is 8 or 3. It is not true that the number is 8. What is the number?", 3, "3", [8]),
    ("double_negation", "It's not as if the total weren't 6 + 7. So what is the total?", 13, "6 + 7", []),
    ("double_negation", f"Either 9 - 4 or 9 + 4. Nobody denies that it is 9 - 4. Which value is it? {FMT_A}", 5, "9 - 4", [13]),
    ("double_negation", "The right choice between 12 and 21 is not the one that isn't 12. Name it.", 12, "12", [21]),
    # exclusion counting: count what lacks a property
    ("exclusion_counting", "In the list 2, 7, 4, 9, 6, count the entries that fail to be even.", 2, "sum(1 for x in [2, 7, 4, 9, 6] if x % 2)", [3]),
    ("exclusion_counting", f"Look at 1, 3, 8, 5. How many of them are something other than odd? {FMT_A}", 1, "sum(1 for x in [1, 3, 8, 5] if x % 2 == 0)", [3]),
    ("exclusion_counting", "Among 10, 2, 15, 7, 3, how many numbers are at most 6?", 2, "sum(1 for x in [10, 2, 15, 7, 3] if x <= 6)", [3]),
    ("exclusion_counting", f"Tally the numbers in 4, 5, 6, 7, 8 that are not above 5. {FMT_B}", 2, "sum(1 for x in [4, 5, 6, 7, 8] if not x > 5)", [3]),
    ("exclusion_counting", "Of 3, 6, 9, 10, 12, how many can't be divided evenly by 3?", 1, "sum(1 for x in [3, 6, 9, 10, 12] if x % 3)", [4]),
    ("exclusion_counting", "Skip every even number in 8, 1, 2, 5, 4, 3, 6. How many numbers remain?", 3, "sum(1 for x in [8, 1, 2, 5, 4, 3, 6] if x % 2)", [4]),
    ("exclusion_counting", f"Five numbers: 11, 4, 13, 2, 20. Count those that aren't bigger than 10. {FMT_C}", 2, "sum(1 for x in [11, 4, 13, 2, 20] if x <= 10)", [3]),
    ("exclusion_counting", "From 6, 7, 8, 9, 10, remove the odd ones. How many are left?", 3, "sum(1 for x in [6, 7, 8, 9, 10] if x % 2 == 0)", [2]),
    ("exclusion_counting", "How many entries of 5, 10, 15, 16 are not multiples of five?", 1, "sum(1 for x in [5, 10, 15, 16] if x % 5)", [3]),
    ("exclusion_counting", f"In 1, 2, 3, 4, 5, 6, 7, count the numbers that are not less than 3. {FMT_A}", 5, "sum(1 for x in range(1, 8) if not x < 3)", [2]),
    ("exclusion_counting", "Which count do you get for numbers outside the range 4 to 8 in the list 2, 5, 9, 7, 1?", 3, "sum(1 for x in [2, 5, 9, 7, 1] if not 4 <= x <= 8)", [2]),
    # order of operations with a wrong-order result quoted
    ("order_of_ops", "A student worked left to right and got 20 for 2 + 3 × 4. Do it properly.", 14, "2 + 3 * 4", [20]),
    ("order_of_ops", f"Evaluate 5 + 2 × 3 the standard way (the answer 21 is a left-to-right slip). {FMT_A}", 11, "5 + 2 * 3", [21]),
    ("order_of_ops", "Someone computed 10 - 2 × 3 as 24. Multiplication goes first; what is the real value?", 4, "10 - 2 * 3", [24]),
    ("order_of_ops", f"Work out 4 × 2 + 1. A classmate wrote 12 by adding first, which is incorrect. {FMT_B}", 9, "4 * 2 + 1", [12]),
    ("order_of_ops", "Does 1 + 2 × 5 equal 15? No. Find what it does equal.", 11, "1 + 2 * 5", [15]),
    ("order_of_ops", f"Solve (2 + 3) × 2 respecting the brackets; 8 is what you get if you ignore them. {FMT_C}", 10, "(2 + 3) * 2", [8]),
    ("order_of_ops", "Calculate 6 + 6 ÷ 2. Someone said 6, but they divided last.", 9, "6 + 6 // 2", [6]),
    ("order_of_ops", "With proper precedence, what is 3 × 3 - 2? A wrong attempt gave 3.", 7, "3 * 3 - 2", [3]),
    ("order_of_ops", f"A spreadsheet was set up to go left to right and showed 35 for 3 + 4 × 5. What is the true value? {FMT_A}", 23, "3 + 4 * 5", [35]),
    ("order_of_ops", "Compute 9 - 1 × 4. The value 32 comes from subtracting before multiplying.", 5, "9 - 1 * 4", [32]),
    ("order_of_ops", "2 × 4 + 2 × 3: one person got 30 by going strictly left to right. What is the right total?", 14, "2 * 4 + 2 * 3", [30]),
]


# Two candidates, one claim under 1-4 negations (the count in the comment: each of not, n't, false, untrue,
# error, mistaken, incorrect, refuse, deny, dispute, never, no one, nobody negates once); the distractor is the
# other candidate. Odd: the named candidate is ruled out.
ODD, EVEN = "odd_negations", "even_negations"
NEGATION_WORDS = re.compile(r"\bnot\b|n't|\bfalse\b|untrue|\berror\b|mistaken|incorrect|refuse|\bdeny\b|disput|"
                            r"\bnever\b|no one|nobody", re.IGNORECASE)
PARITY_ENTRIES = [
    # 1 negation
    (ODD, "Pick from 6 and 11. The one we want is not 6. Which number do we want?", 11, "11", [6]),
    (ODD, "Two options are on the table: 5 + 3 and 5 - 3. The correct one isn't 5 + 3. Give its value.", 2, "5 - 3", [8]),
    (ODD, "Of 4 × 2 and 4 + 2, exactly one is right, and 4 × 2 is not that one. Reply with the right one's value.",
     6, "4 + 2", [8]),
    (ODD, "The secret number is 14 or 19, but definitely not 19. What is the secret number?", 14, "14", [19]),
    (ODD, f"We need either 7 + 7 or 7 × 3. We don't need 7 + 7. Compute the value we need. {FMT_A}", 21, "7 * 3", [14]),
    (ODD, "The prize is 9 - 6 or 9 + 6, and the prize is not 9 - 6. How big is the prize?", 15, "9 + 6", [3]),
    # 2 negations
    (EVEN, "It's false that 12 isn't our number. The options were 12 and 20. What is our number?", 12, "12", [20]),
    (EVEN, "Either 3 + 6 or 3 × 6. I can't agree that it's not 3 × 6. Which value is it?", 18, "3 * 6", [9]),
    (EVEN, "The total is 8 + 5 or 8 - 5. It would be an error to think the total is not 8 - 5. Give the total.",
     3, "8 - 5", [13]),
    (EVEN, "Between 16 and 10, it is untrue that the winner is not 10. Name the winner.", 10, "10", [16]),
    (EVEN, f"We have 2 × 7 and 2 + 7. Saying the value is not 2 + 7 would be incorrect. What is the value? {FMT_B}",
     9, "2 + 7", [14]),
    (EVEN, "Candidates: 15 and 4. I refuse to accept that 15 is not the answer. What is the answer?", 15, "15", [4]),
    # 3 negations
    (ODD, "Possible: 7 or 13. It is untrue that it's false that 7 isn't the answer. What is the answer?",
     13, "13", [7]),
    (ODD, "Choose between 6 + 2 and 6 × 2. It would be an error to claim it is false that the value is not 6 × 2. "
     "What is the value?", 8, "6 + 2", [12]),
    (ODD, "Either 11 or 5 is correct. I don't accept that it's untrue that 11 isn't correct. Which is correct?",
     5, "5", [11]),
    (ODD, "The number is 3 × 3 or 3 + 3. No one disputes that the number isn't 3 + 3. What is the number?",
     9, "3 * 3", [6]),
    (ODD, f"Options: 17 and 8. You'd be mistaken to deny that 17 is not the one. Which is the one? {FMT_B}",
     8, "8", [17]),
    (ODD, f"The sum is 4 + 9 or 4 + 8. It's false that it's false that the sum is not 4 + 9. Give the sum. {FMT_C}",
     12, "4 + 8", [13]),
    # 4 negations
    (EVEN, "Two guesses, 10 and 6. Nobody can deny that it's false that 10 isn't the answer. What is the answer?",
     10, "10", [6]),
    (EVEN, "Pick 5 + 4 or 5 × 4. I won't accept that it's untrue that it's false that the pick is not 5 × 4. "
     "What is the pick worth?", 20, "5 * 4", [9]),
    (EVEN, "Between 14 and 7, it is never false that it's untrue that 14 isn't the one. Which is the one?",
     14, "14", [7]),
    (EVEN, "The value is 8 - 2 or 8 + 2. No one could deny it's an error to say the value is not 8 - 2. "
     "What is the value?", 6, "8 - 2", [10]),
    (EVEN, f"Options: 3 and 18. It's false that it's untrue that it's false that 3 is not the answer. What is the "
     f"answer? {FMT_A}", 3, "3", [18]),
    (EVEN, "Either 2 × 8 or 2 + 8 is right. I refuse to deny that it's untrue that 2 × 8 isn't right. "
     "Which is right?", 16, "2 * 8", [10]),
]


def build(entries: list = ENTRIES, prefix: str = "p") -> list[dict]:
    rows = []
    for index, (idea, prompt, hand, check, distractors) in enumerate(entries):
        computed = eval(check, {"__builtins__": {}}, {"sum": sum, "max": max, "min": min, "sorted": sorted, "range": range})  # noqa: S307 (our own constants)
        if computed != hand:
            raise AssertionError(f"entry {index} ({prompt!r}): hand answer {hand} != computed {computed}")
        if hand in distractors:
            raise AssertionError(f"entry {index}: a distractor equals the answer")
        negations = len(NEGATION_WORDS.findall(prompt))
        if idea in (ODD, EVEN) and (negations % 2 == 1) != (idea == ODD):
            raise AssertionError(f"entry {index} ({prompt!r}): {negations} negation words, filed as {idea}")
        rows.append({"id": f"{prefix}{index:02d}-{idea}", "prompt": prompt, "answer": str(hand),
                     "distractors": [str(d) for d in distractors], "idea": idea})
    return rows


if __name__ == "__main__":
    for out, rows in ((OUT, build()), (PARITY_OUT, build(PARITY_ENTRIES, "n"))):
        out.write_text("".join(json.dumps(row) + "\n" for row in rows))
        print(f"wrote {len(rows)} prompts to {out}")
