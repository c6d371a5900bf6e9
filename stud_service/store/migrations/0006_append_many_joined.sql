-- stud_append_many with the commands' events in one text: commands separated by the ASCII record
-- separator (chr(30)), each command's events by newlines. Canonical JSON escapes every control
-- character, so neither separator can occur inside an event; a single text parameter spares the
-- client from quoting JSON into an array literal.
CREATE FUNCTION stud_append_joined(
    p_streams     text[],
    p_expected    bigint[],
    p_request_ids text[],
    p_commands    text
) RETURNS TABLE (idx integer, outcome "char", first_version bigint, last_version bigint)
LANGUAGE sql AS $$
    SELECT * FROM stud_append_many(p_streams, p_expected, p_request_ids, string_to_array(p_commands, chr(30)));
$$;
