-- Earlier append paths nothing calls any more: appends go through the one-statement batch in
-- stud_service/store/_writer.py, and a refused batch through stud_append_commands (0007).
DROP FUNCTION IF EXISTS stud_append_joined(text[], bigint[], text[], text);
DROP FUNCTION IF EXISTS stud_append_many(text[], bigint[], text[], text[]);
DROP FUNCTION IF EXISTS stud_append_batch(text[], bigint[], text[], integer[], text[], bigint[], text[]);
DROP FUNCTION IF EXISTS stud_append_text(text, bigint, text, text);
DROP FUNCTION IF EXISTS stud_append(text, bigint, text, text[], bigint[], text[]);
